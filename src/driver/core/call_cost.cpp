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
    const double least_empty = *std::min_element(empty.begin(), empty.end());
    const double kernel = *std::min_element(samples.begin(), samples.end()) - least_empty;
    // The empty calls' own spread, and a tenth of a call: they run in another process,
    // whose calls need not cost exactly what this host's do (tightly clustered empty
    // calls a little dearer than this host's once left a naive rotate at 64 CPE 0.0).
    return kernel > std::max(median(empty) - least_empty, least_empty / 10);
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
