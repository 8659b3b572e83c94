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

bool call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty) {
    if (samples.empty() || empty.empty()) return false;
    return *std::min_element(samples.begin(), samples.end()) > median(empty);
}

bool call_cost_resolved(const std::vector<double>& oracle, const std::vector<double>& variant,
                        const std::vector<double>& empty) {
    return call_cost_resolved(oracle, empty) && call_cost_resolved(variant, empty);
}

KBestResult k_best_less_call_cost(const std::vector<double>& samples, const std::vector<double>& empty,
                                  const KBestConfig& config) {
    if (empty.empty()) return k_best_of(samples, config);
    if (!call_cost_resolved(samples, empty)) {
        KBestResult whole = k_best_of(samples, config);
        whole.converged = false;
        return whole;
    }
    return k_best_of(less_call_cost(samples, *std::min_element(empty.begin(), empty.end())), config);
}

RatioEstimate speedup_less_call_cost(const std::vector<double>& oracle, const std::vector<double>& variant,
                                     const std::vector<double>& empty) {
    if (!call_cost_resolved(oracle, variant, empty)) return paired_ratio(oracle, variant);
    const double typical = median(empty);
    return paired_ratio(less_call_cost(oracle, typical), less_call_cost(variant, typical));
}

}  // namespace perflab
