// A call's own cost taken out of a kernel's samples. The host's CPU time of a call
// includes waking the host and putting it back to sleep (3-8 us here, as much as a
// whole kernel at 64), so empty calls are timed in the same rounds as the kernels
// and after the same preparation. A CPE is a floor, so it subtracts the least empty
// call from the least sample; a speedup pairs whole samples, each carrying a typical
// call's cost, so it subtracts the median empty call (the least would leave the rest
// of that cost in both and pull every speedup towards 1).
//
// The empty calls run in a host of their own, so their cost only stands for the
// kernel's host while the kernel stands clear of the call's own noise. Which noise
// depends on the figure. A CPE compares floors (the least sample, the least empty
// call), so it needs the kernel's floor clear of what the floors themselves are unsure
// by: the gap from each series' least to its K-th least. A speedup takes a typical
// call out of every sample, so it needs the kernel's fastest call clear of the empty
// calls' spread up to their median. A tenth of a call is unknown either way (the
// empties come from another process). A figure whose kernel is not clear keeps its
// whole samples: subtracting would credit the kernel with speed nothing measured, up
// to an 80x speedup from a naive rotate at 64 under a busy neighbour. Under busy
// neighbours the empties' median drifts microseconds above their floor while the
// floors hold: with the typical rule for both figures, the unrolled blocked rotate
// at 64 (1.4 us of kernel) read up to 5.09 CPE, its whole call, against 0.87-1.16
// in one process (make bench-engine, 48 rounds); with the floors, one run in 20 kept
// the speedup's cost and read 0.90 CPE, the others 0.88-1.05.
#pragma once

#include <vector>

#include "common/paired_ratio.hpp"
#include "common/sampler.hpp"

namespace perflab {

// Samples less `cost`; never below one tick, so a CPE is always positive.
std::vector<double> less_call_cost(const std::vector<double>& samples, double cost);

// Whether the call's cost can come out of a CPE of `samples`: what their least leaves
// over the least empty call is more than a tenth of a call and more than the floors'
// own noise (the K-th least over the least, of each), or the empties' spread to their
// median, whichever is less (so a series a speedup may take the cost out of, a CPE
// may too).
bool cpe_call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty, int k);

// Whether the call's cost can come out of a speedup of `samples`: what their least
// leaves over the least empty call is more than the empty calls' own spread to their
// median and a tenth of a call.
bool speedup_call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty);

// Both of a speedup's series are resolved.
bool speedup_call_cost_resolved(const std::vector<double>& oracle, const std::vector<double>& variant,
                                const std::vector<double>& empty);

// K-best of `samples` less the least of `empty` (none: nothing subtracted; not
// cpe_call_cost_resolved: nothing subtracted and not converged).
KBestResult k_best_less_call_cost(const std::vector<double>& samples, const std::vector<double>& empty,
                                  const KBestConfig& config);

// The oracle's samples over the variant's, round by round, each less the median of
// `empty`; whole samples when either series is not speedup_call_cost_resolved
// (towards 1, never past it).
RatioEstimate speedup_less_call_cost(const std::vector<double>& oracle, const std::vector<double>& variant,
                                     const std::vector<double>& empty);

}  // namespace perflab
