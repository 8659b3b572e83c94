// Correctness: one call of a variant on fresh input, judged bit for bit against
// the oracle, with src, the canaries and poison telling apart the ways a kernel
// can be wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "call_outcome.hpp"
#include "image.hpp"
#include "input_generator.hpp"
#include "kernel.hpp"
#include "kernel_host.hpp"

namespace perflab {

struct PixelDiff {
    int row = 0, col = 0;
    pixel expected{}, actual{};
};

struct CheckFailure {
    enum class Kind { wrong_result, unwritten, src_modified, out_of_bounds, crashed, timed_out, tampered };
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

// The two images of one call in a kernel host, and what they held before it.
class Trial {
public:
    // Lays the host's images out for `dim` unless they already are.
    Trial(KernelHost& host, int dim);
    int dim() const { return dim_; }

    // Fresh random src and fresh poison in dst (never timed).
    // A host that dies or stalls past `timeout_seconds` here is reported by run().
    void prepare(InputGenerator& inputs, unsigned timeout_seconds);
    HostCall run(const HostFunction& fn, unsigned timeout_seconds, std::span<CallBracket* const> brackets = {});
    // Judges the last run against `kernel`'s oracle.
    std::optional<CheckFailure> verify(Kernel kernel, const CallOutcome& outcome);

private:
    static int laid_out(KernelHost& host, int dim);
    KernelHost& host_;
    int dim_;
    HostImage src_, dst_;
    std::vector<pixel> src_before_, poison_, expected_;
};

// prepare + run + verify: the check before timing.
std::optional<CheckFailure> check_variant(KernelHost& host, const HostFunction& fn, int dim, InputGenerator& inputs,
                                          unsigned timeout_seconds);

}  // namespace perflab
