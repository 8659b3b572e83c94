#include "latency.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

namespace perflab {

namespace {

// memcpy, because nodes may be misaligned; it compiles to one mov.
inline const char* next(const char* p) {
    const char* q;
    std::memcpy(&q, p, sizeof q);
    return q;
}

// Unrolled so the loop's own counter work is negligible beside the load chain.
__attribute__((noinline)) const char* chase(const char* p, std::size_t loads) {
    for (std::size_t i = 0; i < loads; i += 8) {
        p = next(p); p = next(p); p = next(p); p = next(p);
        p = next(p); p = next(p); p = next(p); p = next(p);
    }
    return p;
}

// Keeps the end of every chase observable, so the compiler cannot drop it.
const char* volatile chase_sink;

}  // namespace

void link_cycle(const std::vector<char*>& nodes) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const char* target = nodes[(i + 1) % nodes.size()];
        std::memcpy(nodes[i], &target, sizeof target);
    }
}

std::vector<char*> random_line_cycle(char* base, std::size_t bytes, std::size_t line,
                                     std::uint64_t seed) {
    std::vector<std::uint32_t> order(std::max<std::size_t>(bytes / line, 1));
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    std::vector<char*> nodes(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) nodes[i] = base + std::size_t(order[i]) * line;
    return nodes;
}

ChaseTiming time_chase(Clock& clock, const char* start, std::size_t loads, std::size_t warmup,
                       const KBestConfig& options) {
    loads = std::max<std::size_t>(8, loads / 8 * 8);
    const char* p = chase(start, (warmup + 7) / 8 * 8);
    const KBestResult r = k_best_timed(clock, [&] { p = chase(p, loads); }, options);
    chase_sink = p;
    return {r.best / clock.ticks_per_second() * 1e9 / double(loads), r.spread, r.converged};
}

std::vector<LatencyPoint> measure_latency_curve(Clock& clock, char* base,
                                                 const std::vector<std::size_t>& sizes,
                                                 const CurveOptions& options) {
    std::vector<LatencyPoint> curve;
    for (std::size_t bytes : sizes) {
        const auto nodes = random_line_cycle(base, bytes, options.line, options.seed + bytes);
        link_cycle(nodes);
        // The pilot is also the warm-up: one full pass loads a cache-sized working set;
        // past the caches the first K-best samples do that job, so it is capped.
        const auto pilot = time_chase(clock, nodes.front(), 2048,
                                      std::min(nodes.size(), options.loads), {1, 1.0, 1});
        const auto loads = std::clamp<std::size_t>(
            std::size_t(options.sample_ns / pilot.ns_per_load), 4096, options.loads);
        const auto t = time_chase(clock, nodes.front(), loads, 0, options.kbest);
        curve.push_back({bytes, t.ns_per_load, t.spread});
    }
    return curve;
}

std::vector<LatencyPoint> measure_same_set_chase(Clock& clock, char* base, std::size_t stride,
                                                  int max_n, const CurveOptions& options) {
    std::vector<LatencyPoint> curve;
    for (int n = 1; n <= max_n; ++n) {
        std::vector<char*> nodes;
        for (int i = 0; i < n; ++i) nodes.push_back(base + std::size_t(i) * stride);
        link_cycle(nodes);
        const auto t = time_chase(clock, nodes.front(), options.loads, nodes.size() * 4,
                                  options.kbest);
        curve.push_back({std::size_t(n), t.ns_per_load, t.spread});
    }
    return curve;
}

namespace {

__attribute__((noinline)) std::uint64_t add_chain(std::uint64_t iterations) {
    std::uint64_t x = 0;
    for (std::uint64_t i = 0; i < iterations; ++i)
        asm volatile(".rept 64\n\tadd $1, %0\n\t.endr" : "+r"(x));
    return x;
}

}  // namespace

double measure_core_hz(Clock& clock) {
    constexpr std::uint64_t iterations = 20000;  // 1.28 M adds: ~0.3 ms at 4 GHz
    // The first runs also wake the core up from a low clock to its working one.
    KBestConfig options{3, 0.01, 40};
    volatile std::uint64_t sink = 0;
    const KBestResult r = k_best_timed(clock, [&] { sink = add_chain(iterations); }, options);
    (void)sink;
    const double seconds = r.best / clock.ticks_per_second();
    return double(iterations * 64) / seconds;
}

void keep_fastest(std::vector<LatencyPoint>& best, const std::vector<LatencyPoint>& again) {
    for (const LatencyPoint& p : again)
        for (LatencyPoint& b : best)
            if (b.x == p.x && p.ns < b.ns) b = p;
}

std::vector<std::size_t> size_grid(std::size_t lo, std::size_t hi, int per_octave) {
    std::vector<std::size_t> sizes;
    for (std::size_t octave = lo; octave <= hi; octave *= 2)
        for (int step = 0; step < per_octave && (step == 0 || octave < hi); ++step)
            sizes.push_back(octave + octave / std::size_t(per_octave) * std::size_t(step));
    return sizes;
}

}  // namespace perflab
