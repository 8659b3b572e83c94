// Where a function lives in a program, from the ELF symbol table, so that
// `cachesim --function NAME` can keep only the accesses NAME's own code makes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

struct AddressRange {
    std::uint64_t begin; // first byte
    std::uint64_t end;   // one past the last byte
    bool contains(std::uint64_t addr) const { return addr >= begin && addr < end; }
};

struct FunctionLocation {
    // Every function symbol called NAME (static functions may repeat a name), at
    // link-time addresses.
    std::vector<AddressRange> ranges;
    // A PIE (ET_DYN) runs wherever the loader puts it; its addresses then move by
    // load base - lowest_load_address.
    bool position_independent = false;
    std::uint64_t lowest_load_address = 0; // page-aligned p_vaddr of the first PT_LOAD
};

// Throws std::runtime_error with a one-line message when the file is unreadable,
// not a 64-bit ELF file, or has no sized function symbol called name.
FunctionLocation locate_function(const std::string& elf_path, const std::string& name);

} // namespace perflab
