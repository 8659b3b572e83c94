// Load-to-use latency by pointer chasing: each load's address is the value the
// previous load returned, so loads cannot overlap and out-of-order execution and
// prefetchers (which would need to know the next address) have nothing to work on.
#pragma once

#include "common/clock.hpp"
#include "common/sampler.hpp"
#include "knees.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perflab {

// Writes at each of `nodes` (the visiting order) the address of the next one, the last
// pointing back to the first. Nodes may be misaligned: the line-size probe needs that.
void link_cycle(const std::vector<char*>& nodes);

// One node at the start of every `line` bytes of [base, base + bytes), in a random order
// (a single cycle through all of them), so no stride exists for a prefetcher to follow.
std::vector<char*> random_line_cycle(char* base, std::size_t bytes, std::size_t line,
                                     std::uint64_t seed);

struct ChaseTiming {
    double ns_per_load = 0;
    double spread = 0;        // K-best disagreement, a fraction
    bool converged = false;
};

// Follows a linked cycle from `start`: one untimed pass over `warmup` loads, then
// K-best of `loads` loads.
ChaseTiming time_chase(Clock& clock, const char* start, std::size_t loads, std::size_t warmup,
                       const KBestConfig& options);

struct CurveOptions {
    std::size_t line = 64;
    std::size_t loads = std::size_t{1} << 17;  // per sample, at most
    double sample_ns = 2e6;  // ... and fewer when they would take longer than this
    KBestConfig kbest{};
    std::uint64_t seed = 1;
};

// The latency curve: one random line cycle per working-set size in `sizes`, all within
// `base`, which must be at least the largest size.
std::vector<LatencyPoint> measure_latency_curve(Clock& clock, char* base,
                                                 const std::vector<std::size_t>& sizes,
                                                 const CurveOptions& options);

// Latency of chasing over n = 1..max_n lines `stride` bytes apart. With the stride a
// multiple of (sets x line) all n lines fall in one set, so latency jumps past n = ways.
std::vector<LatencyPoint> measure_same_set_chase(Clock& clock, char* base, std::size_t stride,
                                                  int max_n, const CurveOptions& options);

// The core clock in Hz, from a chain of dependent adds (one cycle each on every x86 core
// since the Pentium 4): the TSC ticks at a fixed rate that need not be the core's.
double measure_core_hz(Clock& clock);

// Merges a later round into `best` point by point (matched by x; `again` may hold only
// some of the points), keeping the faster: a neighbour that takes part of a cache for a
// while makes it look smaller, and only the fastest round shows the cache itself.
void keep_fastest(std::vector<LatencyPoint>& best, const std::vector<LatencyPoint>& again);

// Sizes from `lo` to `hi` (both powers of two), `per_octave` of them in each octave
// (1, 2 or 4): 4 gives 1, 1.25, 1.5, 1.75 x 2^k, which holds the usual 3 x 2^k sizes.
std::vector<std::size_t> size_grid(std::size_t lo, std::size_t hi, int per_octave);

}  // namespace perflab
