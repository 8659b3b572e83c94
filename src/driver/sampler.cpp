#include "sampler.hpp"

#include <algorithm>

namespace perflab {

bool k_best_converged(std::vector<double> samples, const KBestConfig& config) {
    if (int(samples.size()) < config.k) return false;
    std::partial_sort(samples.begin(), samples.begin() + config.k, samples.end());
    return samples[std::size_t(config.k - 1)] <= (1.0 + config.epsilon) * samples[0];
}

namespace {

// Takes one sample into `r`; false once `r` is finished.
bool add_sample(KBestResult& r, const KBestConfig& config, const std::function<double()>& take_sample) {
    if (r.converged || r.samples >= config.max_samples) return false;
    double s = take_sample();
    if (s < 0) return false;
    r.all.push_back(s);
    ++r.samples;
    if (r.best_index < 0 || s < r.best) {
        r.best = s;
        r.best_index = r.samples - 1;
    }
    r.converged = k_best_converged(r.all, config);
    return !r.converged && r.samples < config.max_samples;
}

}  // namespace

KBestResult k_best(const KBestConfig& config, const std::function<double()>& take_sample) {
    return k_best_interleaved(config, {take_sample}).front();
}

std::vector<KBestResult> k_best_interleaved(const KBestConfig& config,
                                            const std::vector<std::function<double()>>& take_samples) {
    std::vector<KBestResult> results(take_samples.size());
    std::vector<bool> active(take_samples.size(), true);
    for (bool any = true; any;) {
        any = false;
        for (std::size_t i = 0; i < take_samples.size(); ++i)
            if (active[i]) any |= active[i] = add_sample(results[i], config, take_samples[i]);
    }
    return results;
}

}  // namespace perflab
