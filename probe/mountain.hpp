// The memory mountain (CS:APP 6.6.1): read throughput as a function of working-set size
// (temporal locality) and stride (spatial locality), measured as the textbook does.
#pragma once

#include "common/clock.hpp"
#include "common/sampler.hpp"

#include <cstddef>
#include <vector>

namespace perflab {

struct MountainOptions {
    std::vector<std::size_t> sizes;  // working sets in bytes, ascending
    std::vector<int> strides;        // in 8-byte elements, ascending
    KBestConfig kbest{3, 0.025, 20};
    // Small working sets are read repeatedly in one sample until it makes this many
    // loads, so that each sample lasts long enough to time.
    std::size_t min_loads_per_sample = std::size_t{1} << 20;
};

struct Mountain {
    std::vector<std::size_t> sizes;
    std::vector<int> strides;
    std::vector<std::vector<double>> mb_per_s;  // [size index][stride index]
    std::vector<std::vector<bool>> converged;   // whether K-best agreed there
};

// Measures over `data`, which must hold the largest size; it is overwritten.
Mountain measure_mountain(Clock& clock, long* data, const MountainOptions& options);

}  // namespace perflab
