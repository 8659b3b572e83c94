#include "symbol_table.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace perflab {

std::vector<unsigned char> read_binary_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

std::vector<CodeSymbol> function_symbols(const std::string& executable) {
    std::vector<CodeSymbol> out;
    const auto file = read_binary_file(executable);
    if (file.size() < sizeof(Elf64_Ehdr) || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) return out;
    Elf64_Ehdr eh;
    std::memcpy(&eh, file.data(), sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_EXEC || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + std::size_t(eh.e_shnum) * sizeof(Elf64_Shdr) > file.size())
        return out;
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    std::memcpy(sections.data(), file.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
    for (const auto& sh : sections) {
        if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= sections.size() || sh.sh_offset + sh.sh_size > file.size())
            continue;
        const auto& strtab = sections[sh.sh_link];
        for (std::size_t i = 0; i < sh.sh_size / sizeof(Elf64_Sym); ++i) {
            Elf64_Sym sym;
            std::memcpy(&sym, file.data() + sh.sh_offset + i * sizeof sym, sizeof sym);
            auto type = ELF64_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
            if (sym.st_name >= strtab.sh_size || strtab.sh_offset + sym.st_name >= file.size()) continue;
            const char* name = reinterpret_cast<const char*>(file.data() + strtab.sh_offset + sym.st_name);
            out.push_back({std::string(name, strnlen(name, file.size() - strtab.sh_offset - sym.st_name)), sym.st_value,
                           sym.st_size});
        }
    }
    std::sort(out.begin(), out.end(), [](const CodeSymbol& a, const CodeSymbol& b) { return a.start < b.start; });
    return out;
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
