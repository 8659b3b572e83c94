// An image shared with the kernel host and the driver's copy of it. The host puts
// an inaccessible page before and after each image; the driver fills the slack
// between with canary bytes, so a kernel that writes outside its buffer either
// faults at once or leaves a mark the checker finds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "defs.h"
#include "driver/core/kernel_host.hpp"  // RemoteImage

namespace perflab {

// Images are 32-byte aligned, as the classic driver promised.
inline constexpr std::size_t kImageAlignment = 32;
// How much of the slack before an image is checked for stray writes (it may be
// megabytes: the images sit in whole huge pages, pixels at the back).
inline constexpr std::size_t kCanaryWindow = 4096;

inline bool same_pixel(const pixel& a, const pixel& b) {
    return a.red == b.red && a.green == b.green && a.blue == b.blue;
}

class HostImage {
public:
    HostImage(const RemoteImage& where, int dim);

    int dim() const { return dim_; }
    std::size_t pixel_count() const { return std::size_t(dim_) * std::size_t(dim_); }
    // The driver's copy: what download() brought back.
    std::span<pixel> pixels();
    std::span<const pixel> pixels() const;

    // Canaries around the shared image, and its pixels written in place by `fill`
    // (given the shared pixels): what this CPU's caches take in is the shared image
    // alone, as a one-process caller's are after it fills its images.
    template <class Fill>
    void write(Fill&& fill) {
        write_canaries();
        fill(std::span<pixel>{reinterpret_cast<pixel*>(shared() + before_), pixel_count()});
    }
    void download();  // pixels and the canary windows back
    std::size_t damaged_canary_before() const;
    std::size_t damaged_canary_after() const;

    // Where a faulting address (in the host) lies relative to this image.
    enum class Region { outside, guard_before, guard_after };
    Region classify(const void* address) const;

private:
    void write_canaries();
    std::uint8_t* shared() const { return where_.local + (where_.pixels - where_.region) - before_; }

    RemoteImage where_;
    int dim_;
    std::size_t before_, after_;        // canary bytes on either side
    std::vector<std::uint8_t> buffer_;  // canary, pixels, canary: one contiguous span of the host
};

}  // namespace perflab
