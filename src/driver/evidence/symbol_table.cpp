#include "symbol_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace perflab {

std::vector<CodeSymbol> function_symbols(const ElfFile& executable) {
    if (!executable.fixed_address()) return {};
    auto out = executable.functions(ElfFile::Table::symtab);
    std::sort(out.begin(), out.end(), [](const CodeSymbol& a, const CodeSymbol& b) { return a.start < b.start; });
    return out;
}

std::vector<CodeSymbol> function_symbols(const std::string& executable) {
    try {
        return function_symbols(ElfFile(executable));
    } catch (const std::runtime_error&) {
        return {};
    }
}

const CodeSymbol* symbol_containing(const std::vector<CodeSymbol>& symbols, std::uint64_t address) {
    const CodeSymbol* best = nullptr;
    for (const auto& s : symbols)
        // A zero-sized symbol (hand-written assembly) can only match its first byte.
        if (address >= s.start && address < s.start + std::max<std::uint64_t>(s.size, 1)) {
            // Aliases (malloc, __libc_malloc) share an address: keep the shortest name.
            if (!best || s.name.size() < best->name.size()) best = &s;
        }
    return best;
}

}  // namespace perflab
