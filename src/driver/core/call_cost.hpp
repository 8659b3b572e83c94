// A call's own cost taken out of a kernel's samples. The host's CPU time of a call
// includes waking the host and putting it back to sleep (3-8 us here, as much as a
// whole kernel at 64), so empty calls are timed in the same rounds as the kernels
// and after the same preparation. A CPE is a floor, so it subtracts the least empty
// call from the least sample; a speedup pairs whole samples, each carrying a typical
// call's cost, so it subtracts the median empty call (the least would leave the rest
// of that cost in both and pull every speedup towards 1).
//
// The empty calls run in a host of their own, so their cost only stands for the
// kernel's host while the kernel is slower than a typical empty call. A series whose
// fastest call is not clearly (the kernel hides in the call's own noise, or the empty
// calls came out about as slow as this host's whole calls) keeps its whole samples:
// subtracting would credit the kernel with speed nothing measured, up to an 80x
// speedup from a naive rotate at 64 under a busy neighbour.
#pragma once

#include <vector>

#include "common/paired_ratio.hpp"
#include "common/sampler.hpp"

namespace perflab {

// Samples less `cost`; never below one tick, so a CPE is always positive.
std::vector<double> less_call_cost(const std::vector<double>& samples, double cost);

// Whether the call's cost can come out of `samples`: what their least leaves over the
// least empty call is more than the empty calls' own spread and a tenth of a call.
bool call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty);

// Both of a speedup's series are resolved.
bool call_cost_resolved(const std::vector<double>& oracle, const std::vector<double>& variant,
                        const std::vector<double>& empty);

// K-best of `samples` less the least of `empty` (none: nothing subtracted; not
// resolved: nothing subtracted and not converged).
KBestResult k_best_less_call_cost(const std::vector<double>& samples, const std::vector<double>& empty,
                                  const KBestConfig& config);

// The oracle's samples over the variant's, round by round, each less the median of
// `empty`; whole samples when either series is not resolved (towards 1, never past it).
RatioEstimate speedup_less_call_cost(const std::vector<double>& oracle, const std::vector<double>& variant,
                                     const std::vector<double>& empty);

}  // namespace perflab
