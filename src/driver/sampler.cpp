#include "sampler.hpp"

#include <algorithm>

namespace perflab {

bool k_best_converged(std::vector<double> samples, const KBestConfig& config) {
    if (int(samples.size()) < config.k) return false;
    std::partial_sort(samples.begin(), samples.begin() + config.k, samples.end());
    return samples[std::size_t(config.k - 1)] <= (1.0 + config.epsilon) * samples[0];
}

KBestResult k_best(const KBestConfig& config, const std::function<double()>& take_sample) {
    KBestResult r;
    while (r.samples < config.max_samples) {
        double s = take_sample();
        if (s < 0) break;
        r.all.push_back(s);
        ++r.samples;
        if (r.best_index < 0 || s < r.best) {
            r.best = s;
            r.best_index = r.samples - 1;
        }
        if (k_best_converged(r.all, config)) {
            r.converged = true;
            break;
        }
    }
    return r;
}

}  // namespace perflab
