// A large buffer aligned to 2 MiB and offered to transparent huge pages. Latency
// curves need them: with 4 KiB pages the TLB misses add their own knees, and the
// physical pages scatter over the cache sets, so a cache fills up before its size.
#pragma once

#include <cstddef>
#include <string>

namespace perflab {

class HugeBuffer {
public:
    // Maps and touches `bytes` (rounded up to 2 MiB); throws std::runtime_error.
    explicit HugeBuffer(std::size_t bytes);
    ~HugeBuffer();
    HugeBuffer(const HugeBuffer&) = delete;
    HugeBuffer& operator=(const HugeBuffer&) = delete;

    char* data() const { return data_; }
    std::size_t size() const { return size_; }
    // Bytes the kernel actually backs with huge pages (from /proc/self/smaps).
    std::size_t huge_bytes() const { return huge_bytes_; }
    bool all_huge() const { return huge_bytes_ >= size_; }
    // One line for reports: whether huge pages took, and if not why we think so.
    std::string describe() const;

private:
    char* mapping_ = nullptr;
    std::size_t mapping_size_ = 0;
    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t huge_bytes_ = 0;
    bool advised_ = false;
};

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

}  // namespace perflab
