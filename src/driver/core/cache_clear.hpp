// Clearing the data cache before each sample, as the classic driver did with a
// fixed 16 KB walk, but sized to this machine's L1d.
#pragma once

#include <cstddef>
#include <vector>

#include "common/machine.hpp"

namespace perflab {

class CacheClearer {
public:
    explicit CacheClearer(std::size_t bytes);
    // Twice the L1d: with LRU-like replacement one L1d's worth of other lines
    // leaves some of the old ones in place; two leave none. 64 KiB when unknown.
    static std::size_t size_for(const MachineInfo& machine);
    std::size_t bytes() const { return buffer_.size() * sizeof(long); }
    void clear();

private:
    std::vector<long> buffer_;
};

}  // namespace perflab
