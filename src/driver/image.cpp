#include "image.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace perflab {
namespace {

constexpr std::uint8_t kCanary = 0xA5;

std::size_t page_size() {
    static const std::size_t size = std::size_t(sysconf(_SC_PAGESIZE));
    return size;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Images live in transparent huge pages where the kernel grants them: with 4 KiB
// pages the physically indexed L2 sees a random page colouring on every run, and
// a naive rotate at 512 then swings between two CPEs a factor of two apart.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t count_damaged(const std::uint8_t* begin, const std::uint8_t* end) {
    return std::size_t(std::count_if(begin, end, [](std::uint8_t b) { return b != kCanary; }));
}

}  // namespace

GuardedImage::GuardedImage(int dim) : dim_(dim) {
    const std::size_t page = page_size();
    const std::size_t bytes = pixel_count() * sizeof(pixel);
    // At least one page of slack, so there is always canary before the pixels;
    // whole huge pages, 2 MiB aligned, with the guard pages just outside them.
    usable_bytes_ = round_up(bytes + kImageAlignment + page, kHugePage);
    map_bytes_ = usable_bytes_ + 2 * kHugePage;
    void* p = mmap(nullptr, map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    map_ = static_cast<std::uint8_t*>(p);
    usable_ = reinterpret_cast<std::uint8_t*>(round_up(reinterpret_cast<std::uintptr_t>(map_) + page, kHugePage));
    if (mprotect(usable_, usable_bytes_, PROT_READ | PROT_WRITE) != 0) {
        munmap(map_, map_bytes_);
        throw std::bad_alloc();
    }
    madvise(usable_, usable_bytes_, MADV_HUGEPAGE);  // a hint: without THP we still work
    // The pixels end as close to the back guard page as alignment allows, so a
    // write just past the end either hits a canary byte or faults.
    auto end = reinterpret_cast<std::uintptr_t>(usable_ + usable_bytes_);
    auto start = (end - bytes) & ~std::uintptr_t(kImageAlignment - 1);
    pixels_ = reinterpret_cast<pixel*>(start);
    restore_canaries();
}

GuardedImage::~GuardedImage() {
    if (map_) munmap(map_, map_bytes_);
}

void GuardedImage::restore_canaries() {
    auto* first = reinterpret_cast<std::uint8_t*>(pixels_);
    auto* last = first + pixel_count() * sizeof(pixel);
    std::memset(usable_, kCanary, std::size_t(first - usable_));
    std::memset(last, kCanary, std::size_t(usable_ + usable_bytes_ - last));
}

std::size_t GuardedImage::damaged_canary_before() const {
    return count_damaged(usable_, reinterpret_cast<const std::uint8_t*>(pixels_));
}

std::size_t GuardedImage::damaged_canary_after() const {
    auto* last = reinterpret_cast<const std::uint8_t*>(pixels_ + pixel_count());
    return count_damaged(last, usable_ + usable_bytes_);
}

GuardedImage::Region GuardedImage::classify(const void* address) const {
    // Everything mapped but not usable is PROT_NONE: the guard on either side.
    auto* a = static_cast<const std::uint8_t*>(address);
    if (a >= map_ && a < usable_) return Region::guard_before;
    if (a >= usable_ + usable_bytes_ && a < map_ + map_bytes_) return Region::guard_after;
    return Region::outside;
}

void fill_random(std::span<pixel> image, std::mt19937_64& rng) {
    for (auto& p : image) {
        std::uint64_t r = rng();
        p.red = static_cast<unsigned short>(r);
        p.green = static_cast<unsigned short>(r >> 16);
        p.blue = static_cast<unsigned short>(r >> 32);
    }
}

}  // namespace perflab
