#include "knees.hpp"

#include "common/machine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace perflab {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median of each point and its neighbours: one interrupted sample must not make a
// plateau look like a knee.
std::vector<double> smooth(const std::vector<LatencyPoint>& curve) {
    std::vector<double> out(curve.size());
    for (std::size_t i = 0; i < curve.size(); ++i) {
        if (i == 0 || i + 1 == curve.size()) {
            out[i] = curve[i].ns;
            continue;
        }
        std::array<double, 3> w{curve[i - 1].ns, curve[i].ns, curve[i + 1].ns};
        std::sort(w.begin(), w.end());
        out[i] = w[1];
    }
    return out;
}

struct Segment {
    std::size_t first = 0, last = 0;  // indices, inclusive
    double ns = 0;
};

double segment_latency(const std::vector<LatencyPoint>& curve, const Segment& seg) {
    std::vector<double> v;
    for (std::size_t i = seg.first; i <= seg.last; ++i) v.push_back(curve[i].ns);
    return median(v);
}

// Levels are what lies between steep rises. A cache in a VM rarely gives a flat
// plateau (host pages scatter over the sets, neighbours share the last level), but
// its stretch of the curve still rises far more slowly than a knee does.
std::vector<Segment> levels_between_rises(const std::vector<LatencyPoint>& curve,
                                          const std::vector<double>& s,
                                          const KneeOptions& options) {
    const std::size_t n = curve.size();
    std::vector<Segment> rises;
    for (std::size_t i = 0; i + 1 < n;) {
        const auto steep = [&](std::size_t k) {
            const double octaves = std::log2(double(curve[k + 1].x) / double(curve[k].x));
            return std::log2(s[k + 1] / s[k]) > options.steep_per_octave * octaves;
        };
        if (!steep(i)) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j + 1 < n && steep(j)) ++j;
        rises.push_back({i, j, 0});
        i = j;
    }
    std::erase_if(rises, [&](const Segment& r) {
        return s[r.last] < s[r.first] * options.min_level_ratio;
    });
    std::vector<Segment> levels;
    std::size_t first = 0;
    for (const Segment& r : rises) {
        levels.push_back({first, r.first, 0});
        first = r.last;
    }
    levels.push_back({first, n - 1, 0});
    for (Segment& level : levels) level.ns = segment_latency(curve, level);
    return levels;
}

double max_spread(const std::vector<LatencyPoint>& curve, std::size_t first, std::size_t last) {
    double m = 0;
    for (std::size_t i = first; i <= last; ++i) m = std::max(m, curve[i].spread);
    return m;
}

// Most of a level's points noisy: one disturbed sample is not, since its latency is a
// median.
bool mostly_noisy(const std::vector<LatencyPoint>& curve, const Segment& seg,
                  const KneeOptions& options) {
    std::size_t noisy = 0;
    for (std::size_t i = seg.first; i <= seg.last; ++i) noisy += curve[i].spread > options.noisy_spread;
    return 3 * noisy > seg.last - seg.first + 1;
}

void doubt(Level& level, const std::string& reason) {
    level.certain = false;
    level.why += level.why.empty() ? reason : "; " + reason;
}

std::string kib(std::size_t bytes) { return fmt::format("{} KiB", bytes >> 10); }

// The capacity of level `a`, whose rise to the next level `b` spans a.last .. b.first.
Level knee(const std::vector<LatencyPoint>& curve, const std::vector<double>& s,
           const Segment& a, const Segment& b, const KneeOptions& options) {
    Level level;
    level.latency_ns = a.ns;
    level.certain = true;
    const double mid = std::sqrt(a.ns * b.ns);
    std::size_t c = a.last + 1;
    while (c < b.first && s[c] <= mid) ++c;
    level.knee_lo = curve[c - 1].x;
    level.knee_hi = curve[c].x;
    // A last point before the crossing still at plateau latency held the whole working
    // set, so the capacity is at least that and below the next point; one already
    // slower than the plateau leaves either end possible.
    const bool lo_fits = s[c - 1] <= a.ns * 1.1;
    level.size_bytes = snap_cache_size(level.knee_lo, level.knee_hi - (lo_fits ? 1 : 0));

    // Up to two points into the next level too: a knee that wavers just after the
    // rise is as doubtful as one that wavers inside it.
    for (std::size_t i = c; i <= std::min(b.last, b.first + 2); ++i)
        if (curve[i].ns <= mid) {
            doubt(level, fmt::format("the curve falls back below the knee at {}", kib(curve[i].x)));
            break;
        }
    if (double(curve[b.first].x) / double(curve[a.last].x) > options.sharp_span)
        doubt(level, fmt::format("gradual knee: latency rises from {} to {}", kib(curve[a.last].x),
                                 kib(curve[b.first].x)));
    if (const double noise = max_spread(curve, a.last, b.first); noise > options.noisy_spread)
        doubt(level, fmt::format("noisy around the knee (samples differ by {:.0f}%)", noise * 100));
    if (mostly_noisy(curve, a, options)) doubt(level, "noisy plateau");
    if (a.last - a.first + 1 < std::size_t(options.min_plateau_points))
        doubt(level, "short plateau");
    if (level.size_bytes < 1024 || level.size_bytes > kPlausibleCacheLimit)
        doubt(level, "implausible size");
    return level;
}

}  // namespace

Hierarchy find_levels(const std::vector<LatencyPoint>& curve, const KneeOptions& options) {
    Hierarchy h;
    if (curve.size() < 3) return h;
    const std::vector<double> s = smooth(curve);
    const std::vector<Segment> segs = levels_between_rises(curve, s, options);

    for (std::size_t i = 0; i + 1 < segs.size(); ++i)
        h.caches.push_back(knee(curve, s, segs[i], segs[i + 1], options));

    const Segment& tail = segs.back();
    Level last;
    last.latency_ns = tail.ns;
    last.certain = true;
    if (mostly_noisy(curve, tail, options)) doubt(last, "noisy plateau");
    if (tail.ns >= options.memory_min_ns) {
        h.memory = last;
    } else {
        last.knee_lo = curve.back().x;
        doubt(last, fmt::format("the curve ends on this plateau: larger than {}",
                                kib(curve.back().x)));
        h.caches.push_back(last);
    }
    if (h.caches.size() > 4)
        for (Level& level : h.caches) doubt(level, "more plateaus than caches exist: noisy curve");
    return h;
}

std::size_t snap_cache_size(std::size_t lo, std::size_t hi) {
    if (lo > hi) std::swap(lo, hi);
    for (std::size_t m : {1, 3, 5, 7}) {
        std::size_t best = 0;
        const double centre = std::sqrt(double(lo) * double(hi));
        for (std::size_t size = m; size <= hi; size *= 2)
            if (size >= lo && (!best || std::fabs(std::log(double(size) / centre)) <
                                            std::fabs(std::log(double(best) / centre))))
                best = size;
        if (best) return best;
    }
    // Nothing plausible inside: the candidate nearest the interval in ratio.
    std::size_t best = 1;
    double best_distance = INFINITY;
    for (std::size_t m : {1, 3, 5, 7})
        for (std::size_t size = m; size <= 4 * hi; size *= 2) {
            const double d = std::min(std::fabs(std::log(double(size) / double(lo))),
                                      std::fabs(std::log(double(size) / double(hi))));
            if (d < best_distance) best = size, best_distance = d;
        }
    return best;
}

LineEstimate find_line_size(const std::vector<LatencyPoint>& split_loads) {
    LineEstimate e;
    if (split_loads.size() < 3) return {0, false, "too few boundaries measured"};
    const auto [mn, mx] = std::minmax_element(
        split_loads.begin(), split_loads.end(),
        [](const LatencyPoint& a, const LatencyPoint& b) { return a.ns < b.ns; });
    if (mx->ns < mn->ns * 1.15) return {0, false, "no split-load penalty at any boundary"};
    const double mid = (mn->ns + mx->ns) / 2;
    std::size_t step = split_loads.size();
    while (step > 0 && split_loads[step - 1].ns > mid) --step;
    if (step == split_loads.size()) return {0, false, "no split-load penalty below the largest boundary"};
    e.line_bytes = int(split_loads[step].x);
    e.certain = true;
    double fast_max = 0, slow_min = INFINITY;
    for (std::size_t i = 0; i < split_loads.size(); ++i) {
        if (i < step) fast_max = std::max(fast_max, split_loads[i].ns);
        else slow_min = std::min(slow_min, split_loads[i].ns);
    }
    if (fast_max > mid)
        e.why = "a load within a line was as slow as a split one", e.certain = false;
    else if (slow_min < fast_max * 1.15)
        e.why = "the split-load penalty is barely above the noise", e.certain = false;
    else if (step == 0 || step + 1 == split_loads.size())
        e.why = "the step is at the edge of the boundaries measured", e.certain = false;
    return e;
}

WaysEstimate find_ways(const std::vector<LatencyPoint>& same_set) {
    if (same_set.size() < 2) return {0, false, "too few points"};
    const double threshold = same_set.front().ns * 1.3;
    std::size_t n = 0;
    while (n < same_set.size() && same_set[n].ns <= threshold) ++n;
    if (n == same_set.size())
        return {0, false, fmt::format("no slowdown up to {} lines in one set", same_set.back().x)};
    WaysEstimate e{int(same_set[n - 1].x), true, {}};
    for (std::size_t i = n; i < same_set.size(); ++i)
        if (same_set[i].ns <= threshold) {
            e.certain = false;
            e.why = fmt::format("{} lines were as fast as one again", same_set[i].x);
            break;
        }
    return e;
}

}  // namespace perflab
