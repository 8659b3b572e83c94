// Names of functions in a kernel host, from the addresses it reported: the full
// .symtab of its executable (local symbols included: a student's static helpers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace perflab {

// The function symbol (global or local) whose range holds `address` in the
// fixed-address executable `executable`, when it still has its .symtab.
std::optional<std::string> symbol_name_for(const std::string& executable, std::uint64_t address);

}  // namespace perflab
