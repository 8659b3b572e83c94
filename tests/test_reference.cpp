// The reference kernels against the oracle: every variant (and every path of each
// SIMD kernel's dispatch the CPU supports: scalar, AVX2, AVX-512; and the blocked
// rotate at tile sizes that do not divide dim) must be bit-exact with
// oracle_rotate/oracle_smooth, leave src untouched, write every dst pixel and
// nothing outside dst.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../reference/oracle.h"
#include "../reference/reference.h"

namespace {

using Kernel = std::function<void(int, pixel*, pixel*)>;

struct Variant {
    std::string name;
    Kernel run;
};

enum class Fill { random, zeros, max };

// Guard pixels on each side of dst catch stores that leave the image.
constexpr int kGuard = 8;

std::vector<int> test_dims() {
    std::vector<int> dims;
    for (int d = 1; d <= 130; ++d) dims.push_back(d);
    dims.push_back(512);
    dims.push_back(1000);
    return dims;  // 96 is inside 1..130
}

std::vector<pixel> make_image(int dim, Fill fill, std::mt19937& rng) {
    std::uniform_int_distribution<int> channel(0, 65535);
    std::vector<pixel> image(static_cast<size_t>(dim) * dim);
    for (pixel& p : image) {
        switch (fill) {
        case Fill::random:
            p.red = static_cast<unsigned short>(channel(rng));
            p.green = static_cast<unsigned short>(channel(rng));
            p.blue = static_cast<unsigned short>(channel(rng));
            break;
        case Fill::zeros: p = pixel{0, 0, 0}; break;
        case Fill::max: p = pixel{65535, 65535, 65535}; break;
        }
    }
    return image;
}

bool same(const pixel& a, const pixel& b) {
    return a.red == b.red && a.green == b.green && a.blue == b.blue;
}

std::string show(const pixel& p) {
    return "(" + std::to_string(p.red) + "," + std::to_string(p.green) + "," +
           std::to_string(p.blue) + ")";
}

// Runs one variant on a dst poisoned with `poison` and checks every contract point.
void check_run(const Variant& v, int dim, const std::vector<pixel>& src,
               const std::vector<pixel>& expected, const std::vector<pixel>& poison) {
    std::vector<pixel> input = src;
    std::vector<pixel> dst = poison;  // image plus guards on both sides
    v.run(dim, input.data(), dst.data() + kGuard);

    INFO(v.name << " at dim " << dim);
    size_t n = expected.size(), wrong = 0, first = n;
    for (size_t k = 0; k < n; ++k)
        if (!same(dst[kGuard + k], expected[k])) {
            if (wrong++ == 0) first = k;
        }
    if (wrong) {
        INFO("first wrong pixel (" << first / dim << "," << first % dim << "): expected "
                                   << show(expected[first]) << ", found "
                                   << show(dst[kGuard + first]));
        CHECK(wrong == 0);
    }
    size_t guards_hit = 0;
    for (int g = 0; g < kGuard; ++g) {
        guards_hit += !same(dst[g], poison[g]);
        guards_hit += !same(dst[kGuard + n + g], poison[kGuard + n + g]);
    }
    CHECK(guards_hit == 0);
    size_t src_changed = 0;
    for (size_t k = 0; k < n; ++k) src_changed += !same(input[k], src[k]);
    CHECK(src_changed == 0);
}

// A pixel the kernel never writes keeps the poison; the second run uses the bitwise
// complement, so an unwritten pixel cannot match the expected value both times.
void check_variant(const Variant& v, int dim, const std::vector<pixel>& src,
                   const std::vector<pixel>& expected, std::mt19937& rng) {
    std::uniform_int_distribution<int> channel(1, 65534);
    std::vector<pixel> poison(expected.size() + 2 * kGuard);
    for (pixel& p : poison)
        p = pixel{static_cast<unsigned short>(channel(rng)),
                  static_cast<unsigned short>(channel(rng)),
                  static_cast<unsigned short>(channel(rng))};
    check_run(v, dim, src, expected, poison);
    for (pixel& p : poison)
        p = pixel{static_cast<unsigned short>(~p.red), static_cast<unsigned short>(~p.green),
                  static_cast<unsigned short>(~p.blue)};
    check_run(v, dim, src, expected, poison);
}

void check_against_oracle(const std::vector<Variant>& variants,
                          void (*oracle)(int, pixel*, pixel*), std::vector<int> dims,
                          Fill fill) {
    std::mt19937 rng(1729);
    for (int dim : dims) {
        std::vector<pixel> src = make_image(dim, fill, rng);
        std::vector<pixel> input = src;
        std::vector<pixel> expected(src.size());
        oracle(dim, input.data(), expected.data());
        for (const Variant& v : variants) check_variant(v, dim, src, expected, rng);
    }
}

// Every path of a SIMD kernel this CPU can run, forced through its *_dispatch;
// the paths it cannot run are skipped with a warning, once per test case.
std::vector<Variant> simd_paths(const std::string& name, void (*dispatch)(int, pixel*, pixel*, int)) {
    struct Path {
        int level;
        const char* label;
    };
    std::vector<Variant> variants;
    for (Path path : {Path{REF_SIMD_SCALAR, "scalar fallback"}, Path{REF_SIMD_AVX2, "AVX2 path"},
                      Path{REF_SIMD_AVX512, "AVX-512 path"}}) {
        std::string label = name + " " + path.label;
        if (path.level > ref_simd_best_level()) {
            WARN(label << " not tested: this CPU lacks it");
            continue;
        }
        variants.push_back({label, [dispatch, level = path.level](int d, pixel* s, pixel* o) {
                                dispatch(d, s, o, level);
                            }});
    }
    return variants;
}

std::vector<Variant> rotate_variants() {
    std::vector<Variant> variants = {
#define REF_ROTATE(fn, name, description) {#fn, fn},
#define REF_SMOOTH(fn, name, description)
#include "variants.def"
    };
    for (Variant& v : simd_paths("ref_rotate_simd", ref_rotate_simd_dispatch))
        variants.push_back(std::move(v));
    return variants;
}

std::vector<Variant> smooth_variants() {
    std::vector<Variant> variants = {
#define REF_ROTATE(fn, name, description)
#define REF_SMOOTH(fn, name, description) {#fn, fn},
#include "variants.def"
    };
    for (Variant& v : simd_paths("ref_smooth_simd", ref_smooth_simd_dispatch))
        variants.push_back(std::move(v));
    return variants;
}

}  // namespace

TEST_CASE("reference rotates match the oracle on random images", "[reference]") {
    check_against_oracle(rotate_variants(), oracle_rotate, test_dims(), Fill::random);
}

TEST_CASE("reference rotates match the oracle on all-0 and all-65535 images",
          "[reference]") {
    check_against_oracle(rotate_variants(), oracle_rotate, test_dims(), Fill::zeros);
    check_against_oracle(rotate_variants(), oracle_rotate, test_dims(), Fill::max);
}

TEST_CASE("blocked rotate is exact for tile sizes that do and do not divide dim",
          "[reference]") {
    std::vector<Variant> variants;
    for (int tile : {1, 2, 3, 5, 8, 16, 24, 31, 32, 33, 64, 100, 2000}) {
        variants.push_back({"ref_rotate_blocked_tile tile " + std::to_string(tile),
                            [tile](int d, pixel* s, pixel* o) {
                                ref_rotate_blocked_tile(d, s, o, tile);
                            }});
    }
    check_against_oracle(variants, oracle_rotate, {1, 2, 7, 31, 32, 33, 96, 100, 130, 512},
                         Fill::random);
}

TEST_CASE("reference smooths match the oracle on random images", "[reference]") {
    check_against_oracle(smooth_variants(), oracle_smooth, test_dims(), Fill::random);
}

TEST_CASE("reference smooths match the oracle on all-0 and all-65535 images",
          "[reference]") {
    check_against_oracle(smooth_variants(), oracle_smooth, test_dims(), Fill::zeros);
    check_against_oracle(smooth_variants(), oracle_smooth, test_dims(), Fill::max);
}

TEST_CASE("the multiply-shift division by 9 is exact over every 3x3 sum", "[reference]") {
    // The largest window sum is 9 * 65535; check every value up to it.
    std::uint32_t wrong = 0, first = 0;
    for (std::uint64_t x = 0; x <= 9u * 65535u; ++x) {
        std::uint64_t q = (x * REF_DIV9_MULTIPLIER) >> REF_DIV9_SHIFT;
        if (q != x / 9 && wrong++ == 0) first = static_cast<std::uint32_t>(x);
    }
    INFO("first inexact sum: " << first);
    CHECK(wrong == 0);
}
