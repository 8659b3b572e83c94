#include "cache_clear.hpp"

namespace perflab {

CacheClearer::CacheClearer(std::size_t bytes) : buffer_(bytes / sizeof(long) + 1, 1) {}

std::size_t CacheClearer::size_for(const MachineInfo& machine) {
    const CacheLevel* l1 = machine.l1d();
    return l1 && l1->size_bytes ? 2 * l1->size_bytes : std::size_t{64} << 10;
}

void CacheClearer::clear() {
    // Read-modify-write, so the lines are owned (dirty) and the kernel's first
    // writes pay for evicting them, as after any real work.
    volatile long* p = buffer_.data();
    for (std::size_t i = 0; i < buffer_.size(); i += 8) p[i] = p[i] + 1;
}

}  // namespace perflab
