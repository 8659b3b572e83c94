// Speedup comparisons of the checks: see timing.hpp.
#include "timing.hpp"

#include <fmt/format.h>

namespace perflab::checks {

const DimResult* at_dim(const VariantResult& v, int dim) {
    for (const auto& d : v.dims)
        if (d.dim == dim) return &d;
    return nullptr;
}

// How much faster `a` ran than `b`, by their speedups: each was timed interleaved
// with the oracle, which cancels most of the noise that their CPEs, taken at
// different moments, carry. Naive is `b` with no result: speedup 1.
std::optional<double> time_ratio(const VariantResult& a, const VariantResult* b, int dim) {
    const DimResult* da = at_dim(a, dim);
    const DimResult* db = b ? at_dim(*b, dim) : nullptr;
    if (!da || da->speedup <= 0 || (b && (!db || db->speedup <= 0))) return std::nullopt;
    return da->speedup / (db ? db->speedup : 1.0);
}

static bool converged_at(const VariantResult& v, int dim) {
    const DimResult* d = nullptr;
    for (const auto& r : v.dims)
        if (r.dim == dim) d = &r;
    return d && d->converged;
}

double speedup_at(const KernelEvidence& e, const VariantResult& v) {
    const DimResult* d = at_dim(v, e.dim);
    return d ? d->speedup : 0;
}

Timed timed(const KernelEvidence& e, const VariantResult& v) {
    return {short_name(v.name), speedup_at(e, v), at_dim(v, e.dim), converged_at(v, e.dim)};
}

// A reference's speedup is a point (low == high): nothing of its own to show.
static bool has_interval(const Timed& t) { return t.at && t.at->speedup_high > t.at->speedup_low; }

// How `a`'s speedup compares with `b`'s at the comparison dimension, against the
// run's noise band and, where they overlap, each speedup's own 95% interval: then
// the run cannot say which is faster, whatever the oracle's spread allows.
Gap speedup_gap(const KernelEvidence& e, const Timed& a, const Timed& b) {
    Gap c{compare_speedups(a.speedup, b.speedup, e.noise, a.converged && b.converged)};
    if (c.resolved && a.at && b.at && speedup_intervals_overlap(*a.at, *b.at)) c.resolved = false, c.overlap = true;
    return c;
}

Gap speedup_gap(const KernelEvidence& e, const VariantResult& a, const VariantResult& b) {
    return speedup_gap(e, timed(e, a), timed(e, b));
}

void add_noise(Evidence& ev, const Gap& c, int dim, const Timed& a, const Timed& b) {
    ev.emplace_back("dim", double(dim));
    ev.emplace_back("ratio", c.ratio);
    ev.emplace_back("noise band (+/-)", c.tolerance);
    for (const Timed* t : {&a, &b})
        if (has_interval(*t))
            ev.emplace_back(t->name + " 95% interval", fmt::format("{:.2f}-{:.2f}", t->at->speedup_low, t->at->speedup_high));
    ev.emplace_back("resolved", c.resolved  ? "yes"
                                : c.overlap ? "no: the 95% intervals overlap"
                                            : "no: within this run's noise band");
}

void add_noise(Evidence& ev, const Gap& c, const KernelEvidence& e, const VariantResult& a,
               const VariantResult& b) {
    add_noise(ev, c, e.dim, timed(e, a), timed(e, b));
}

}  // namespace perflab::checks
