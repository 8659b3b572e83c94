// What the latency curves mean: cache levels and their capacities from the knees of a
// pointer-chase curve, the line size from the split-load probe, L1d ways from the
// same-set chase. Pure functions of the measured points, so they are tested on
// synthetic curves; nothing here measures or prints.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/probe_result.hpp"

namespace perflab {

// One measured point: x is the working set in bytes, the boundary a load straddles,
// or the number of same-set lines, depending on the probe.

struct KneeOptions {
    double steep_per_octave = 0.6;  // log2 latency rise per octave of size that is a knee
                                    // (x1.5 per octave); caches' own stretches rise less
    double min_level_ratio = 1.6;   // a rise smaller in total is noise, not a new level
    int min_plateau_points = 3;     // fewer points between knees make the level uncertain
    double noisy_spread = 0.25;     // a K-best spread above this marks a point noisy
    double sharp_span = 1.4;        // a rise over a wider size ratio (> 2 grid steps) is gradual
    double memory_min_ns = 40;      // no cache is this slow, no DRAM this fast
};

struct Level {
    std::size_t size_bytes = 0;           // capacity, snapped; 0 when unknown (or memory)
    std::size_t knee_lo = 0, knee_hi = 0; // measured sizes around the crossing
    double latency_ns = 0;                // median of the level's plateau
    bool certain = false;
    std::string why;                      // what made it uncertain; empty when certain
};

struct Hierarchy {
    std::vector<Level> caches;     // L1 first
    std::optional<Level> memory;   // absent when the curve never left the caches
};

// Levels are the stretches between steep rises of the (median-smoothed) curve; each but
// a DRAM-slow last one is a cache whose capacity is where the curve crosses the
// geometric mean of its latency and the next level's. Expects points sorted by size.
Hierarchy find_levels(const std::vector<LatencyPoint>& curve, const KneeOptions& options = {});

// The most plausible cache size in [lo, hi]: real caches are m x 2^k with small odd m,
// so prefer a power of two, then 3 x 2^k (48 KiB), then 5 x 2^k (1.25 MiB), 7 x 2^k;
// with none inside, the m x 2^k nearest the interval.
std::size_t snap_cache_size(std::size_t lo, std::size_t hi);

struct LineEstimate {
    int line_bytes = 0;  // 0 when no step was found
    bool certain = false;
    std::string why;
};

// From latencies of loads straddling a 2^k boundary (x = 2^k): the line size is the
// smallest boundary from which on every straddling load pays the split-line penalty.
LineEstimate find_line_size(const std::vector<LatencyPoint>& split_loads);

struct WaysEstimate {
    int ways = 0;  // 0 when no step was found
    bool certain = false;
    std::string why;
};

// From latencies of chasing n lines of one set (x = n): the ways are the largest n
// still as fast as n = 1, provided every larger n is clearly slower.
WaysEstimate find_ways(const std::vector<LatencyPoint>& same_set);

}  // namespace perflab
