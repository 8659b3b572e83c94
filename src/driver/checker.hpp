// Correctness: one call of a variant on fresh input, judged bit for bit against
// the oracle, with src, the canaries and poison telling apart the ways a kernel
// can be wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "guarded_call.hpp"
#include "image.hpp"
#include "kernel.hpp"

namespace perflab {

struct PixelDiff {
    int row = 0, col = 0;
    pixel expected{}, actual{};
};

struct CheckFailure {
    enum class Kind { wrong_result, unwritten, src_modified, out_of_bounds, crashed, timed_out };
    Kind kind = Kind::wrong_result;
    int dim = 0;
    std::size_t wrong_pixels = 0;      // pixels of dst that differ from the oracle
    std::size_t unwritten_pixels = 0;  // of those, pixels still holding the poison
    std::optional<PixelDiff> first;    // first wrong pixel in row-major order
    std::string detail;                // what the kind alone does not say
    bool during_timing = false;        // found in a timed call, not the check before

    std::string kind_id() const;   // "wrong-result", "out-of-bounds", ...
    std::string describe() const;  // summary() without when
    std::string summary() const;   // one line: what went wrong, where, at which dim, when
};

// The two images of one call and what they held before it.
class Trial {
public:
    explicit Trial(int dim);
    int dim() const { return src_.dim(); }
    pixel* src() { return src_.data(); }
    pixel* dst() { return dst_.data(); }

    // Fresh random src and fresh poison in dst (never timed).
    void prepare(std::mt19937_64& rng);
    CallOutcome run(lab_test_func fn, unsigned timeout_seconds, std::span<CallBracket* const> brackets = {});
    // Judges the last run against `kernel`'s oracle.
    std::optional<CheckFailure> verify(Kernel kernel, const CallOutcome& outcome);

private:
    GuardedImage src_, dst_;
    std::vector<pixel> src_before_, poison_, expected_;
};

// prepare + run + verify: the check before timing.
std::optional<CheckFailure> check_variant(Kernel kernel, lab_test_func fn, int dim, std::mt19937_64& rng,
                                          unsigned timeout_seconds);

}  // namespace perflab
