// The classic K-best scheme: sample until the K fastest agree within epsilon, or
// the sample budget runs out, and keep the fastest. Samples come from a callback
// so the scheme can be tested on a fake clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "clock.hpp"

namespace perflab {

struct KBestConfig {
    int k = 3;
    double epsilon = 0.01;
    int max_samples = 300;  // K-best alone mostly stops long before; paired ratios need the rounds
    // Measurements taken in turns with the oracle stop once the paired speedup's
    // interval is this narrow (a fraction of it, each side), not on K-best.
    double ratio_tolerance = 0.03;
};

struct KBestResult {
    double best = 0;          // the fastest sample
    int samples = 0;          // how many were taken
    bool converged = false;   // the K fastest agreed within epsilon
    int best_index = -1;      // which sample was the fastest (0-based)
    double spread = 0;        // (K-th fastest - fastest) / fastest: the noise the samples saw
    std::vector<double> all;  // every sample, in order taken
};

// `take_sample` returns one measurement (lower is better) or a negative value to
// stop early (the call failed); the result then holds what was taken so far.
KBestResult k_best(const KBestConfig& config, const std::function<double()>& take_sample);

// Several measurements taken in turns, one sample of each per round, so that
// whatever the machine does meanwhile (a frequency change, a noisy neighbour)
// falls on all of them alike and their ratios stay put. All go on until `enough`
// says so (by default: every one has converged) or the sample budget is spent:
// one that stopped early could keep a slow spell the others then escaped. A
// failed sample (negative) ends them all.
using EnoughSamples = std::function<bool(const std::vector<KBestResult>&)>;
std::vector<KBestResult> k_best_interleaved(const KBestConfig& config,
                                            const std::vector<std::function<double()>>& take_samples,
                                            const EnoughSamples& enough = {});

// Takes one sample of each in turn, round after round, and drops them, for
// `duration`: false as soon as one fails (negative), true once the time is up.
bool warm_up(const std::vector<std::function<double()>>& take_samples, std::chrono::nanoseconds duration);

// The K-best result of samples already taken, as k_best would have kept them.
KBestResult k_best_of(const std::vector<double>& samples, const KBestConfig& config);

// Whether the K fastest of `samples` agree within epsilon.
bool k_best_converged(std::vector<double> samples, const KBestConfig& config);

// K-best of `work` (which must do the same thing every call) timed by `clock`.
template <class Work>
KBestResult k_best_timed(Clock& clock, Work&& work, const KBestConfig& config) {
    return k_best(config, [&] {
        const std::uint64_t t0 = clock.start();
        work();
        return double(clock.stop() - t0);
    });
}

}  // namespace perflab
