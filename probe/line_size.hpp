// The line-size probe. A load that straddles a cache-line boundary needs both lines
// and costs extra cycles; one straddling any smaller power-of-two boundary does not.
// So: chase pointers stored across odd multiples of 2^k (k = 3 .. 11) in an L1-resident
// buffer and see from which 2^k on the chase gets slower. Every load hits L1, so no
// prefetcher takes part - unlike a stride sweep over DRAM, which adjacent-line
// prefetching makes report 128 B for a 64 B line.
#pragma once

#include "common/clock.hpp"
#include "latency.hpp"

#include <vector>

namespace perflab {

// Boundaries from 8 B to 2 KiB: beyond 4 KiB a straddling load also splits a page.
inline constexpr std::size_t kSplitMinBoundary = 8, kSplitMaxBoundary = 2048;
// Bytes of `base` the probe uses; must be 4 KiB aligned.
inline constexpr std::size_t kSplitProbeBytes = 8 * 2 * kSplitMaxBoundary;

// ns per dependent load straddling each boundary (x = boundary), in boundary order.
std::vector<LatencyPoint> measure_split_loads(Clock& clock, char* base, const CurveOptions& options);

}  // namespace perflab
