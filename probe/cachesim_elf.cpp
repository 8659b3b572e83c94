#include "cachesim_elf.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace perflab {

namespace {

// Copies a T out of the image, refusing reads past its end (a truncated or hostile
// file must give an error, not a crash).
template <class T>
T read_at(const std::string& image, std::uint64_t offset, const std::string& path) {
    if (offset > image.size() || image.size() - offset < sizeof(T))
        throw std::runtime_error(fmt::format("{} is truncated or not a valid ELF file", path));
    T value;
    std::memcpy(&value, image.data() + offset, sizeof(T));
    return value;
}

} // namespace

FunctionLocation locate_function(const std::string& path, const std::string& name) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    const std::string image{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};

    const auto header = read_at<Elf64_Ehdr>(image, 0, path);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
        throw std::runtime_error(fmt::format("{} is not a 64-bit ELF program", path));

    FunctionLocation location;
    location.position_independent = header.e_type == ET_DYN;
    bool have_load = false;
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        const auto ph = read_at<Elf64_Phdr>(image, header.e_phoff + std::uint64_t{i} * header.e_phentsize, path);
        if (ph.p_type == PT_LOAD && (!have_load || ph.p_vaddr < location.lowest_load_address)) {
            location.lowest_load_address = ph.p_vaddr & ~std::uint64_t{0xfff};
            have_load = true;
        }
    }

    auto section = [&](unsigned index) {
        return read_at<Elf64_Shdr>(image, header.e_shoff + std::uint64_t{index} * header.e_shentsize, path);
    };
    // .symtab names static functions too; .dynsym is all a stripped program keeps.
    for (const unsigned wanted : {unsigned{SHT_SYMTAB}, unsigned{SHT_DYNSYM}}) {
        for (unsigned i = 0; i < header.e_shnum; ++i) {
            const auto symbols = section(i);
            if (symbols.sh_type != wanted || symbols.sh_entsize != sizeof(Elf64_Sym)) continue;
            const auto strings = section(symbols.sh_link);
            if (strings.sh_offset > image.size() || image.size() - strings.sh_offset < strings.sh_size)
                throw std::runtime_error(fmt::format("{} is truncated or not a valid ELF file", path));
            for (std::uint64_t k = 0; k < symbols.sh_size / sizeof(Elf64_Sym); ++k) {
                const auto sym = read_at<Elf64_Sym>(image, symbols.sh_offset + k * sizeof(Elf64_Sym), path);
                if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
                    sym.st_size == 0 || sym.st_name >= strings.sh_size)
                    continue;
                const char* sym_name = image.data() + strings.sh_offset + sym.st_name;
                if (strnlen(sym_name, strings.sh_size - sym.st_name) != name.size() ||
                    name.compare(0, name.size(), sym_name, name.size()) != 0)
                    continue;
                location.ranges.push_back({sym.st_value, sym.st_value + sym.st_size});
            }
        }
        if (!location.ranges.empty()) return location;
    }
    throw std::runtime_error(fmt::format(
        "{} has no function '{}' in its symbol table; check the name with `nm {}` "
        "(a stripped program or an inlined function has none)",
        path, name, path));
}

} // namespace perflab
