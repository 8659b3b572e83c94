#include "elf_file.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace perflab {

namespace {

// Copies a T out of the image, refusing reads past its end.
template <class T>
T read_at(const std::string& image, std::uint64_t offset, const std::string& path) {
    if (offset > image.size() || image.size() - offset < sizeof(T))
        throw std::runtime_error(fmt::format("{} is truncated or not a valid ELF file", path));
    T value;
    std::memcpy(&value, image.data() + offset, sizeof(T));
    return value;
}

}  // namespace

ElfFile::ElfFile(const std::string& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    image_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());

    const auto header = read_at<Elf64_Ehdr>(image_, 0, path);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
        throw std::runtime_error(fmt::format("{} is not a 64-bit ELF program", path));
    type_ = header.e_type;

    bool have_load = false;
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        const auto ph = read_at<Elf64_Phdr>(image_, header.e_phoff + std::uint64_t{i} * header.e_phentsize, path);
        if (ph.p_type != PT_LOAD) continue;
        if (!have_load || ph.p_vaddr < lowest_load_) {
            lowest_load_ = ph.p_vaddr & ~std::uint64_t{0xfff};
            have_load = true;
        }
        if (ph.p_flags & PF_X) code_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
    }
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        const auto sh = read_at<Elf64_Shdr>(image_, header.e_shoff + std::uint64_t{i} * header.e_shentsize, path);
        sections_.push_back({sh.sh_type, sh.sh_offset, sh.sh_size, sh.sh_entsize, sh.sh_link});
    }
}

std::vector<ElfFunction> ElfFile::functions(Table table) const {
    const unsigned wanted = table == Table::symtab ? SHT_SYMTAB : SHT_DYNSYM;
    std::vector<ElfFunction> out;
    for (const Section& symbols : sections_) {
        if (symbols.type != wanted || symbols.entsize != sizeof(Elf64_Sym) || symbols.link >= sections_.size())
            continue;
        const Section& strings = sections_[symbols.link];
        if (strings.offset > image_.size() || image_.size() - strings.offset < strings.size)
            throw std::runtime_error(fmt::format("{} is truncated or not a valid ELF file", path_));
        for (std::uint64_t k = 0; k < symbols.size / sizeof(Elf64_Sym); ++k) {
            const auto sym = read_at<Elf64_Sym>(image_, symbols.offset + k * sizeof(Elf64_Sym), path_);
            const auto type = ELF64_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
                sym.st_name >= strings.size)
                continue;
            const char* name = image_.data() + strings.offset + sym.st_name;
            out.push_back({std::string(name, strnlen(name, strings.size - sym.st_name)), sym.st_value, sym.st_size,
                           type == STT_GNU_IFUNC});
        }
    }
    return out;
}

std::vector<unsigned char> ElfFile::code_at(std::uint64_t address, std::size_t n) const {
    for (const Segment& s : code_)
        if (address >= s.vaddr && address < s.vaddr + s.filesz) {
            const std::uint64_t off = s.offset + (address - s.vaddr);
            if (off >= image_.size()) return {};
            const std::size_t take = std::min<std::uint64_t>(n, image_.size() - off);
            return {image_.begin() + long(off), image_.begin() + long(off + take)};
        }
    return {};
}

}  // namespace perflab
