#include "cachesim_elf.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/elf_file.hpp"

namespace perflab {

FunctionLocation locate_function(const std::string& path, const std::string& name) {
    const ElfFile elf(path);
    FunctionLocation location;
    location.position_independent = elf.position_independent();
    location.lowest_load_address = elf.lowest_load_address();
    // .symtab names static functions too; .dynsym is all a stripped program keeps.
    for (const auto table : {ElfFile::Table::symtab, ElfFile::Table::dynsym}) {
        for (const ElfFunction& f : elf.functions(table))
            if (!f.ifunc && f.size != 0 && f.name == name) location.ranges.push_back({f.start, f.start + f.size});
        if (!location.ranges.empty()) return location;
    }
    throw std::runtime_error(fmt::format(
        "{} has no function '{}' in its symbol table; check the name with `nm {}` "
        "(a stripped program or an inlined function has none)",
        path, name, path));
}

} // namespace perflab
