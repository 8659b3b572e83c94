// K-best timing, as CS:APP's fcyc does it: repeat a measurement until the K fastest
// samples agree within epsilon. Interrupts and migrations only ever add time, so the
// fastest samples are the ones that measured the code and nothing else.
#pragma once

#include "clock.hpp"

#include <cstdint>
#include <vector>

namespace perflab {

struct KBestOptions {
    int k = 3;              // how many of the fastest samples must agree
    double epsilon = 0.02;  // ... within this fraction of the fastest
    int max_samples = 15;   // give up agreeing after this many (the result says so)
};

struct KBestResult {
    double best_ticks = 0;  // the fastest sample
    double spread = 0;      // (k-th fastest - fastest) / fastest: the noise seen
    int samples = 0;
    bool converged = false; // the K fastest agreed within epsilon
};

// Accumulates samples; kept apart from the timing loop so the policy is testable.
class KBest {
public:
    explicit KBest(KBestOptions options) : options_(options) {}
    void add(double ticks);
    bool done() const;
    KBestResult result() const;

private:
    KBestOptions options_;
    std::vector<double> fastest_;  // sorted, at most k entries
    int samples_ = 0;
};

// Times `work` (which must do the same thing every call) with `clock`.
template <class Work>
KBestResult k_best(Clock& clock, Work&& work, KBestOptions options = {}) {
    KBest best(options);
    while (!best.done()) {
        const std::uint64_t t0 = clock.start();
        work();
        const std::uint64_t t1 = clock.stop();
        best.add(double(t1 - t0));
    }
    return best.result();
}

}  // namespace perflab
