#include "image.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "host/host_protocol.h"

namespace perflab {
namespace {

constexpr std::uint8_t kCanary = 0xA5;

std::size_t count_damaged(const std::uint8_t* begin, const std::uint8_t* end) {
    return std::size_t(std::count_if(begin, end, [](std::uint8_t b) { return b != kCanary; }));
}

}  // namespace

HostImage::HostImage(const RemoteImage& where, int dim) : where_(where), dim_(dim) {
    const std::uint64_t bytes = pixel_count() * sizeof(pixel);
    before_ = std::size_t(std::min<std::uint64_t>(kCanaryWindow, where.pixels - where.region));
    after_ = std::size_t(where.region_end() - (where.pixels + bytes));
    buffer_.assign(before_ + bytes + after_, kCanary);
}

std::span<pixel> HostImage::pixels() { return {reinterpret_cast<pixel*>(buffer_.data() + before_), pixel_count()}; }

std::span<const pixel> HostImage::pixels() const {
    return {reinterpret_cast<const pixel*>(buffer_.data() + before_), pixel_count()};
}

void HostImage::write_canaries() {
    std::memset(shared(), kCanary, before_);
    std::memset(shared() + buffer_.size() - after_, kCanary, after_);
}

void HostImage::download() { std::memcpy(buffer_.data(), shared(), buffer_.size()); }

std::size_t HostImage::damaged_canary_before() const { return count_damaged(buffer_.data(), buffer_.data() + before_); }

std::size_t HostImage::damaged_canary_after() const {
    return count_damaged(buffer_.data() + buffer_.size() - after_, buffer_.data() + buffer_.size());
}

HostImage::Region HostImage::classify(const void* address) const {
    // The host reserves the region with a huge page of PROT_NONE on either side
    // and aligns the region to a huge page inside that (host_protocol.h): at least a
    // page stays before it, and all but a page of the huge page after it.
    const auto a = reinterpret_cast<std::uint64_t>(address);
    const auto page = std::uint64_t(sysconf(_SC_PAGESIZE));
    if (a < where_.region && a + page >= where_.region) return Region::guard_before;
    if (a >= where_.region_end() && a < where_.region_end() + PERFLAB_HOST_HUGE_PAGE - page) return Region::guard_after;
    return Region::outside;
}

}  // namespace perflab
