// Speedup comparisons of the checks: see timing.hpp.
#include "timing.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "support.hpp"

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
SelfNoise self_noise(const KernelEvidence& e) {
    SelfNoise out;
    const auto& vs = e.result.variants;
    auto consider = [&](std::size_t a, std::size_t b) {
        const double sa = speedup_at(e, vs[a]), sb = speedup_at(e, vs[b]);
        if (sa <= 0 || sb <= 0) return;
        const double gap = std::max(sa, sb) / std::min(sa, sb) - 1;
        if (gap > out.gap) out = {gap, fmt::format("{} and {}", fn_name(e, a), fn_name(e, b))};
    };
    const auto gi = graded_index(e.result);
    for (std::size_t i = 0; i < vs.size(); ++i)
        for (std::size_t j = i + 1; j < vs.size(); ++j) {
            if (!vs[i].correct || !vs[j].correct) continue;
            const bool wrapper = gi && (i == *gi || j == *gi) && e.graded_jumps_to &&
                                 *e.graded_jumps_to == fn_name(e, i == *gi ? j : i);
            const bool twins = pattern_of(e, i) && pattern_of(e, j) && same_code(e.figures[i], e.figures[j]) &&
                               same_walk(pattern_of(e, i), pattern_of(e, j));
            if (wrapper || twins) consider(i, j);
        }
    return out;
}

Gap speedup_gap(const KernelEvidence& e, const Timed& a, const Timed& b) {
    Gap c{compare_speedups(a.speedup, b.speedup, e.noise, a.converged && b.converged), false, false, {}};
    if (c.resolved && a.at && b.at && speedup_intervals_overlap(*a.at, *b.at)) c.resolved = false, c.overlap = true;
    c.self = self_noise(e);
    if (c.self.gap > c.tolerance) {
        c.tolerance = c.self.gap;
        if (c.resolved && c.ratio <= 1 + c.tolerance && c.ratio >= 1 / (1 + c.tolerance))
            c.resolved = false, c.floor = true;
    }
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
    if (c.self.gap > 0) {
        ev.emplace_back("same code timed twice", c.self.pair);
        ev.emplace_back("their gap (this run's noise floor)", c.self.gap);
    }
    ev.emplace_back("resolved", c.resolved  ? "yes"
                                : c.overlap ? "no: the 95% intervals overlap"
                                : c.floor   ? "no: within the gap between two timings of the same code"
                                            : "no: within this run's noise band");
}

void add_noise(Evidence& ev, const Gap& c, const KernelEvidence& e, const VariantResult& a,
               const VariantResult& b) {
    add_noise(ev, c, e.dim, timed(e, a), timed(e, b));
}

}  // namespace perflab::checks
