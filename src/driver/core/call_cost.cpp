#include "call_cost.hpp"

#include <algorithm>

#include "common/statistics.hpp"

namespace perflab {

std::vector<double> less_call_cost(const std::vector<double>& samples, double cost) {
    std::vector<double> out;
    out.reserve(samples.size());
    for (double s : samples) out.push_back(std::max(s - cost, 1.0));
    return out;
}

KBestResult k_best_less_call_cost(const std::vector<double>& samples, const std::vector<double>& empty,
                                  const KBestConfig& config) {
    const double least = empty.empty() ? 0 : *std::min_element(empty.begin(), empty.end());
    return k_best_of(less_call_cost(samples, least), config);
}

RatioEstimate speedup_less_call_cost(const std::vector<double>& oracle, const std::vector<double>& variant,
                                     const std::vector<double>& empty) {
    const double typical = median(empty);
    return paired_ratio(less_call_cost(oracle, typical), less_call_cost(variant, typical));
}

}  // namespace perflab
