// Names of functions in the running executable, for attributing cachegrind's
// per-function counts to a registered variant: cachegrind names functions by the
// ELF symbols, and the driver's link makes every kernel symbol LOCAL, which
// dladdr() cannot see - so this reads the full .symtab.
#pragma once

#include <optional>
#include <string>

namespace perflab {

// The function symbol (global or local) whose range holds `address`, when the
// address lies in the main executable and it still has its .symtab (not stripped).
std::optional<std::string> symbol_name_for(const void* address);

}  // namespace perflab
