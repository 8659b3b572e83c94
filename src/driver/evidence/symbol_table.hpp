// The functions of a kernel host, by run-time address: the full .symtab of its
// executable (local symbols included: a student's static helpers, the runtime's
// own). Only a fixed-address executable's symbols are its run-time addresses (the
// hosts are linked -static -no-pie), so any other file has none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/elf_file.hpp"

namespace perflab {

using CodeSymbol = ElfFunction;

// Every function symbol of `executable`, sorted by address; none when it cannot
// be read or is not a fixed-address executable.
std::vector<CodeSymbol> function_symbols(const std::string& executable);
std::vector<CodeSymbol> function_symbols(const ElfFile& executable);

// The symbol whose range holds `address`; of aliases, the shortest name.
const CodeSymbol* symbol_containing(const std::vector<CodeSymbol>& symbols, std::uint64_t address);

}  // namespace perflab
