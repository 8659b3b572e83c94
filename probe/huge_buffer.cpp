#include "huge_buffer.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perflab {

namespace {

// Sums AnonHugePages over the mappings that overlap [begin, end).
std::size_t huge_bytes_in(std::uintptr_t begin, std::uintptr_t end) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    std::size_t total = 0;
    while (std::getline(smaps, line)) {
        std::uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream fields(line);
        if (line.find("AnonHugePages:") == 0) {
            std::size_t kb = 0;
            std::string key;
            fields >> key >> kb;
            if (inside) total += kb * 1024;
        } else if (fields >> std::hex >> lo >> dash >> hi && dash == '-') {
            inside = lo < end && hi > begin;
        }
    }
    return total;
}

std::string thp_setting() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string text;
    std::getline(f, text);
    return text.empty() ? "absent" : text;
}

}  // namespace

HugeBuffer::HugeBuffer(std::size_t bytes) {
    size_ = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    // Over-allocate by one huge page so an aligned start exists inside the mapping.
    mapping_size_ = size_ + kHugePageBytes;
    void* p = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        throw std::runtime_error(fmt::format("mmap of {} bytes: {}", mapping_size_,
                                             std::strerror(errno)));
    mapping_ = static_cast<char*>(p);
    const auto start = (reinterpret_cast<std::uintptr_t>(p) + kHugePageBytes - 1) &
                       ~std::uintptr_t(kHugePageBytes - 1);
    data_ = reinterpret_cast<char*>(start);
    advised_ = madvise(data_, size_, MADV_HUGEPAGE) == 0;
    // Touch now, so page faults (and huge page zeroing) are not timed later.
    std::memset(data_, 1, size_);
    huge_bytes_ = huge_bytes_in(start, start + size_);
}

HugeBuffer::~HugeBuffer() { munmap(mapping_, mapping_size_); }

std::string HugeBuffer::describe() const {
    if (all_huge()) return fmt::format("yes, {} MiB in 2 MiB pages (madvise MADV_HUGEPAGE)",
                                       size_ >> 20);
    return fmt::format("{} of {} MiB in 2 MiB pages (madvise {}, THP setting: {})",
                       huge_bytes_ >> 20, size_ >> 20, advised_ ? "accepted" : "refused",
                       thp_setting());
}

}  // namespace perflab
