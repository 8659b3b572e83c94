#include "sampler.hpp"

#include <algorithm>

namespace perflab {

namespace {

// (K-th fastest - fastest) / fastest, over the samples there are.
double kth_spread(std::vector<double> samples, int k) {
    if (samples.empty()) return 0;
    std::size_t kth = std::min(samples.size(), std::size_t(k)) - 1;
    std::partial_sort(samples.begin(), samples.begin() + std::ptrdiff_t(kth) + 1, samples.end());
    return samples[0] > 0 ? samples[kth] / samples[0] - 1 : 0;
}

}  // namespace

bool k_best_converged(std::vector<double> samples, const KBestConfig& config) {
    return int(samples.size()) >= config.k && kth_spread(std::move(samples), config.k) <= config.epsilon;
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
    r.spread = kth_spread(r.all, config.k);
    return !r.converged && r.samples < config.max_samples;
}

}  // namespace

KBestResult k_best(const KBestConfig& config, const std::function<double()>& take_sample) {
    return k_best_interleaved(config, {take_sample}).front();
}

std::vector<KBestResult> k_best_interleaved(const KBestConfig& config,
                                            const std::vector<std::function<double()>>& take_samples,
                                            const std::function<void(std::size_t)>& finished) {
    std::vector<KBestResult> results(take_samples.size());
    std::vector<bool> active(take_samples.size(), true);
    // Every other round goes backwards, so no measurement always comes first: the
    // one that follows another pays for what it left in the caches and predictors.
    for (bool any = true, forward = true; any; forward = !forward) {
        any = false;
        for (std::size_t n = 0; n < take_samples.size(); ++n) {
            std::size_t i = forward ? n : take_samples.size() - 1 - n;
            if (!active[i]) continue;
            active[i] = add_sample(results[i], config, take_samples[i]);
            any |= active[i];
            if (!active[i] && finished) finished(i);
        }
    }
    return results;
}

}  // namespace perflab
