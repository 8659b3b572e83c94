// Images in guarded memory: an inaccessible page before and after each image and
// canary bytes in the slack between, so a kernel that writes outside its buffer
// either faults at once or leaves a mark the checker finds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include "defs.h"

namespace perflab {

class GuardedImage {
public:
    explicit GuardedImage(int dim);
    ~GuardedImage();
    GuardedImage(const GuardedImage&) = delete;
    GuardedImage& operator=(const GuardedImage&) = delete;

    int dim() const { return dim_; }
    std::size_t pixel_count() const { return std::size_t(dim_) * std::size_t(dim_); }
    pixel* data() { return pixels_; }
    const pixel* data() const { return pixels_; }
    std::span<pixel> pixels() { return {pixels_, pixel_count()}; }
    std::span<const pixel> pixels() const { return {pixels_, pixel_count()}; }

    // Bytes of canary before and after the pixels that no longer hold the canary.
    std::size_t damaged_canary_before() const;
    std::size_t damaged_canary_after() const;
    void restore_canaries();

    // Where a faulting address lies relative to this image, for the report.
    enum class Region { outside, guard_before, guard_after };
    Region classify(const void* address) const;

private:
    int dim_;
    std::uint8_t* map_ = nullptr;   // whole mapping, guard pages included
    std::size_t map_bytes_ = 0;
    std::uint8_t* usable_ = nullptr;  // first byte after the front guard page
    std::size_t usable_bytes_ = 0;
    pixel* pixels_ = nullptr;
};

// Full-range random pixels from a seeded generator: the same seed, the same images.
void fill_random(std::span<pixel> image, std::mt19937_64& rng);

// A poison pattern is random too, never zeros, so a pixel left unwritten cannot
// pass for a correct black pixel.
inline void fill_poison(std::span<pixel> image, std::mt19937_64& rng) { fill_random(image, rng); }

inline bool same_pixel(const pixel& a, const pixel& b) {
    return a.red == b.red && a.green == b.green && a.blue == b.blue;
}

// Images are 32-byte aligned, as the classic driver promised.
inline constexpr std::size_t kImageAlignment = 32;

}  // namespace perflab
