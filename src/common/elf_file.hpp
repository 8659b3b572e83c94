// One reader of 64-bit ELF files for everything that looks into a program: the
// driver's evidence (which function of a kernel host ran, what an instruction is)
// and `cachesim --function` (where a function's code lies). A truncated or hostile
// file gives an error, never a read past its end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

struct ElfFunction {
    std::string name;
    std::uint64_t start = 0, size = 0;  // link-time address; size 0 for hand-written assembly
    bool ifunc = false;                 // an STT_GNU_IFUNC resolver rather than an STT_FUNC
};

class ElfFile {
public:
    // Throws std::runtime_error with a one-line message naming the file when it
    // cannot be read, is not a 64-bit ELF file, or its headers run past its end.
    explicit ElfFile(const std::string& path);

    // ET_EXEC: link-time addresses are run-time ones. A PIE (ET_DYN) runs wherever
    // the loader puts it; its addresses then move by load base - lowest_load_address().
    bool fixed_address() const { return type_ == 2; }
    bool position_independent() const { return type_ == 3; }
    std::uint64_t lowest_load_address() const { return lowest_load_; }  // page-aligned p_vaddr of the first PT_LOAD

    // The defined function symbols of .symtab (static functions included) or of
    // .dynsym (all a stripped program keeps), in file order.
    enum class Table { symtab, dynsym };
    std::vector<ElfFunction> functions(Table table) const;

    // Up to `n` bytes of the file at link-time `address` in an executable segment;
    // empty where no executable segment holds it.
    std::vector<unsigned char> code_at(std::uint64_t address, std::size_t n) const;

private:
    std::string path_;
    std::string image_;
    unsigned type_ = 0;
    std::uint64_t lowest_load_ = 0;
    struct Segment {
        std::uint64_t vaddr, offset, filesz;
    };
    std::vector<Segment> code_;
    struct Section {
        unsigned type;
        std::uint64_t offset, size, entsize;
        unsigned link;
    };
    std::vector<Section> sections_;
};

}  // namespace perflab
