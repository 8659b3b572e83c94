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

namespace {

double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// How far the K-th least of `v` lies above its least: how unsure its floor is.
double floor_noise(std::vector<double> v, int k) {
    const auto kth = v.begin() + std::clamp<std::ptrdiff_t>(k - 1, 0, std::ptrdiff_t(v.size()) - 1);
    std::nth_element(v.begin(), kth, v.end());
    return *kth - least(v);
}

// What the least sample leaves over the least empty call, when it is more than
// `noise` and a tenth of a call (they run in another process, whose calls need not
// cost exactly what this host's do: tightly clustered empty calls a little dearer
// than this host's once left a naive rotate at 64 CPE 0.0).
bool kernel_clear_of(const std::vector<double>& samples, const std::vector<double>& empty, double noise) {
    const double least_empty = least(empty);
    return least(samples) - least_empty > std::max(noise, least_empty / 10);
}

}  // namespace

bool cpe_call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty, int k) {
    if (samples.empty() || empty.empty()) return false;
    const double floors = floor_noise(samples, k) + floor_noise(empty, k);
    return kernel_clear_of(samples, empty, std::min(floors, median(empty) - least(empty)));
}

bool speedup_call_cost_resolved(const std::vector<double>& samples, const std::vector<double>& empty) {
    if (samples.empty() || empty.empty()) return false;
    return kernel_clear_of(samples, empty, median(empty) - least(empty));
}

bool speedup_call_cost_resolved(const std::vector<double>& oracle, const std::vector<double>& variant,
                                const std::vector<double>& empty) {
    return speedup_call_cost_resolved(oracle, empty) && speedup_call_cost_resolved(variant, empty);
}

KBestResult k_best_less_call_cost(const std::vector<double>& samples, const std::vector<double>& empty,
                                  const KBestConfig& config) {
    if (empty.empty()) return k_best_of(samples, config);
    if (!cpe_call_cost_resolved(samples, empty, config.k)) {
        KBestResult whole = k_best_of(samples, config);
        whole.converged = false;
        return whole;
    }
    return k_best_of(less_call_cost(samples, least(empty)), config);
}

RatioEstimate speedup_less_call_cost(const std::vector<double>& oracle, const std::vector<double>& variant,
                                     const std::vector<double>& empty) {
    if (!speedup_call_cost_resolved(oracle, variant, empty)) return paired_ratio(oracle, variant);
    const double typical = median(empty);
    return paired_ratio(less_call_cost(oracle, typical), less_call_cost(variant, typical));
}

}  // namespace perflab
