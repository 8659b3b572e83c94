#include "symbols.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace perflab {
namespace {

class File {
public:
    explicit File(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)) {}
    ~File() {
        if (fd_ >= 0) ::close(fd_);
    }
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    bool ok() const { return fd_ >= 0; }
    bool read_at(void* buf, std::size_t n, std::uint64_t offset) const {
        return ::pread(fd_, buf, n, off_t(offset)) == ssize_t(n);
    }

private:
    int fd_;
};

template <typename T>
bool read_array(const File& f, std::vector<T>& out, std::size_t count, std::uint64_t offset) {
    out.resize(count);
    return f.read_at(out.data(), count * sizeof(T), offset);
}

}  // namespace

std::optional<std::string> symbol_name_for(const std::string& executable, std::uint64_t target) {
    File exe(executable.c_str());
    Elf64_Ehdr eh;
    // Only a fixed-address executable's symbols are its run-time addresses (the
    // kernel hosts are linked -static -no-pie).
    if (!exe.ok() || !exe.read_at(&eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_type != ET_EXEC)
        return std::nullopt;
    std::vector<Elf64_Shdr> sections;
    if (!read_array(exe, sections, eh.e_shnum, eh.e_shoff)) return std::nullopt;

    for (const auto& sh : sections) {
        if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= sections.size()) continue;
        std::vector<Elf64_Sym> symbols;
        if (!read_array(exe, symbols, sh.sh_size / sizeof(Elf64_Sym), sh.sh_offset)) return std::nullopt;
        for (const auto& sym : symbols) {
            auto type = ELF64_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
            // A zero-sized symbol (hand-written assembly) can only match its first byte.
            std::uint64_t end = sym.st_value + std::max<std::uint64_t>(sym.st_size, 1);
            if (target < sym.st_value || target >= end) continue;
            const auto& strtab = sections[sh.sh_link];
            std::vector<char> name;
            if (sym.st_name >= strtab.sh_size) return std::nullopt;
            std::size_t n = std::min<std::uint64_t>(strtab.sh_size - sym.st_name, 4096);
            if (!read_array(exe, name, n, strtab.sh_offset + sym.st_name)) return std::nullopt;
            return std::string(name.data(), strnlen(name.data(), n));
        }
    }
    return std::nullopt;
}

}  // namespace perflab
