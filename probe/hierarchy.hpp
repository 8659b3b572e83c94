// cacheprobe's measurement, start to finish: runs every probe, reads what the
// OS/CPUID reports, and puts both into one ProbeResult. Prints nothing.
#pragma once

#include "common/clock.hpp"
#include "common/probe_result.hpp"
#include "knees.hpp"

#include <cstddef>
#include <cstdint>

namespace perflab {

struct HierarchyOptions {
    bool quick = false;                             // fewer, shorter samples
    std::size_t max_bytes = std::size_t{256} << 20; // largest working set of the curve
    std::uint64_t seed = 1;                         // the chase permutations' seed
};

// The same-set chase strides by the L1d size, so the ways it found are only as
// certain as that size: an uncertain L1d leaves them uncertain however clean their
// step, and `why` says which of the two it was.
WaysEstimate judge_l1d_ways(WaysEstimate ways, const ProbeLevel* l1);

// The caller pins the thread first; `cpu` only goes into the result.
ProbeResult probe_hierarchy(Clock& clock, const HierarchyOptions& options, int cpu);

}  // namespace perflab
