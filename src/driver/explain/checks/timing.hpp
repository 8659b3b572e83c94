// How the checks compare two functions' timings: speedups at the comparison
// dimension, against the run's noise band and each speedup's 95% interval.
#pragma once

#include <optional>
#include <string>

#include "driver/explain/explain.hpp"

namespace perflab::checks {

const DimResult* at_dim(const VariantResult& v, int dim);
// How much faster `a` ran than `b`, by their speedups (naive when `b` is null).
std::optional<double> time_ratio(const VariantResult& a, const VariantResult* b, int dim);
// A speedup at the comparison dimension, 0 where there is none. Comparisons use it,
// never the mean over --dims: the noise band and the 95% intervals are that
// dimension's, and a mean over other dimensions would be held against them.
double speedup_at(const KernelEvidence& e, const VariantResult& v);

// One side of a speedup comparison: its speedup and, where it was timed in rounds
// with the oracle, its 95% interval, both at the comparison dimension.
struct Timed {
    std::string name;
    double speedup = 0;
    const DimResult* at = nullptr;
    bool converged = true;
};
Timed timed(const KernelEvidence& e, const VariantResult& v);

// The same code timed twice in this run - rotate()/smooth() and the function it
// tail-calls, or two variants with the same simulated figures and walk: the gap
// between their speedups is this run's own noise floor, whatever the band says.
struct SelfNoise {
    double gap = 0;    // max/min - 1 of the two speedups; 0 when nothing was timed twice
    std::string pair;  // "rotate() and rotate_blocked"
};
SelfNoise self_noise(const KernelEvidence& e);

struct Gap : SpeedupGap {
    bool overlap = false;  // resolved by the band, but the two 95% intervals overlap: unresolved
    bool floor = false;    // unresolved because it is inside the gap between two timings of the same code
    SelfNoise self;
};
// How `a`'s speedup compares with `b`'s, against the run's noise band and, where
// they overlap, each speedup's own 95% interval.
Gap speedup_gap(const KernelEvidence& e, const Timed& a, const Timed& b);
Gap speedup_gap(const KernelEvidence& e, const VariantResult& a, const VariantResult& b);

// Both sides' intervals beside the band, so that "resolved: no" shows its reason,
// and the dimension all of them were measured at.
void add_noise(Evidence& ev, const Gap& c, int dim, const Timed& a, const Timed& b);
void add_noise(Evidence& ev, const Gap& c, const KernelEvidence& e, const VariantResult& a, const VariantResult& b);

}  // namespace perflab::checks
