// Which functions of a kernel host have the kernels' signature,
// void f(int, T *, T *), read from its DWARF debug information (kernels.c is built
// with -g). --explain calls an unregistered function only when its own declaration
// says it takes what a kernel takes: a helper with other parameters would be
// called with garbage.
#pragma once

#include <set>
#include <string>
#include <variant>

namespace perflab {

struct NoDebugInfo {
    std::string reason;
};

// Names of the functions declared void f(int, pointer, pointer), from the text of
// `readelf --debug-dump=info --wide`.
std::set<std::string> kernel_shaped_functions(const std::string& readelf_info);

// The same for an executable, running readelf on it.
std::variant<std::set<std::string>, NoDebugInfo> kernel_shaped_functions_of(const std::string& executable);

}  // namespace perflab
