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

void keep(KBestResult& r, double s) {
    r.all.push_back(s);
    ++r.samples;
    if (r.best_index < 0 || s < r.best) {
        r.best = s;
        r.best_index = r.samples - 1;
    }
}

void judge(KBestResult& r, const KBestConfig& config) {
    r.converged = k_best_converged(r.all, config);
    r.spread = kth_spread(r.all, config.k);
}

void add_sample(KBestResult& r, const KBestConfig& config, double s) {
    keep(r, s);
    judge(r, config);
}

}  // namespace

KBestResult k_best_of(const std::vector<double>& samples, const KBestConfig& config) {
    KBestResult r;
    for (double s : samples) keep(r, s);
    judge(r, config);
    return r;
}

KBestResult k_best(const KBestConfig& config, const std::function<double()>& take_sample) {
    return k_best_interleaved(config, {take_sample}).front();
}

std::vector<KBestResult> k_best_interleaved(const KBestConfig& config,
                                            const std::vector<std::function<double()>>& take_samples,
                                            const EnoughSamples& enough) {
    std::vector<KBestResult> results(take_samples.size());
    auto all_converged = [&] {
        if (enough) return enough(results);
        return std::all_of(results.begin(), results.end(), [](const KBestResult& r) { return r.converged; });
    };
    // Every other round goes backwards, so no measurement always comes first: the
    // one that follows another pays for what it left in the caches and predictors.
    for (int round = 0; round < config.max_samples && !all_converged(); ++round) {
        for (std::size_t n = 0; n < take_samples.size(); ++n) {
            std::size_t i = round % 2 == 0 ? n : take_samples.size() - 1 - n;
            double s = take_samples[i]();
            if (s < 0) return results;  // a failed call ends the comparison
            add_sample(results[i], config, s);
        }
    }
    return results;
}

bool warm_up(const std::vector<std::function<double()>>& take_samples, std::chrono::nanoseconds duration) {
    const auto until = std::chrono::steady_clock::now() + duration;
    do {
        for (const auto& take : take_samples)
            if (take() < 0) return false;
    } while (std::chrono::steady_clock::now() < until);
    return true;
}

}  // namespace perflab
