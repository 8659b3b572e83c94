#include "runner.hpp"

#include "oracle.h"
#include "statistics.hpp"

namespace perflab {
namespace {

class ClockBracket final : public CallBracket {
public:
    explicit ClockBracket(Clock& clock) : clock_(clock) {}
    void begin() override { start_ = clock_.start(); }
    void end() override { stop_ = clock_.stop(); }
    std::uint64_t ticks() const { return stop_ - start_; }

private:
    Clock& clock_;
    std::uint64_t start_ = 0, stop_ = 0;
};

}  // namespace

Runner::Runner(const Plan& plan, Clock& clock, CacheClearer& clearer, SampleCounters* counters)
    : plan_(plan), clock_(clock), clearer_(clearer), counters_(counters), rng_(plan.seed) {}

Runner::Timing Runner::time_variant(Kernel kernel, lab_test_func fn, int dim, bool check_last) {
    Timing t;
    Trial trial(dim);
    ClockBracket clock(clock_);
    std::vector<CallBracket*> brackets;
    if (counters_) brackets.push_back(counters_);
    brackets.push_back(&clock);  // innermost: the clock times only the call

    const double pixels = double(dim) * double(dim);
    std::vector<CounterValues> per_sample;
    CallOutcome last;
    t.kbest = k_best(plan_.kbest, [&]() -> double {
        // Fresh input and fresh poison before every sample, so a kernel cannot
        // return an answer it remembered from an earlier call.
        trial.prepare(rng_);
        clearer_.clear();
        last = trial.run(fn, plan_.timeout_seconds, brackets);
        if (!last.ok()) return -1;
        if (counters_) per_sample.push_back(counters_->per_pixel(pixels));
        // A zero-tick sample (a clock coarser than the call) still counts as one
        // tick: a CPE is always positive.
        return double(std::max<std::uint64_t>(clock.ticks(), 1));
    });
    if (!last.ok() || check_last) {
        t.failure = trial.verify(kernel, last);
        if (t.failure && last.ok()) t.failure->during_timing = true;
    }
    if (t.kbest.best_index >= 0 && counters_) t.counters = per_sample[std::size_t(t.kbest.best_index)];
    return t;
}

VariantResult Runner::measure(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                              const std::vector<double>& baseline, bool check) {
    VariantResult vr;
    vr.name = name;
    auto fail = [&](CheckFailure f) {
        vr.correct = false;
        vr.failure = std::move(f);
        return vr;
    };
    if (check)
        if (auto f = check_variant(kp.kernel, fn, kOddDim, rng_, plan_.timeout_seconds)) return fail(*f);
    std::vector<double> speedups;
    for (std::size_t i = 0; i < kp.dims.size(); ++i) {
        int dim = kp.dims[i];
        if (check)
            if (auto f = check_variant(kp.kernel, fn, dim, rng_, plan_.timeout_seconds)) return fail(*f);
        Timing t = time_variant(kp.kernel, fn, dim, check);
        if (t.failure) return fail(*t.failure);
        DimResult d;
        d.dim = dim;
        d.cpe = t.kbest.best / (double(dim) * double(dim));  // a tick is the report's cycle
        d.samples = t.kbest.samples;
        d.converged = t.kbest.converged;
        d.counters = std::move(t.counters);
        if (i < baseline.size()) {
            d.baseline_cpe = baseline[i];
            d.speedup = d.baseline_cpe / d.cpe;
            speedups.push_back(d.speedup);
        }
        vr.dims.push_back(std::move(d));
    }
    if (!speedups.empty() && speedups.size() == kp.dims.size()) vr.mean_speedup = geometric_mean(speedups);
    return vr;
}

std::vector<KernelResult> Runner::run(const RunnerObserver& observer) {
    std::vector<KernelResult> results;
    for (const auto& kp : plan_.kernels) {
        KernelResult kr;
        kr.kernel = kp.kernel;
        kr.dims = kp.dims;
        kr.notice = kp.notice;
        kr.baseline_cpes = kp.fixed_baseline;
        if (kr.baseline_cpes.empty() && !kp.variants.empty()) {
            // The oracle is the definition of correct; timing it needs no check.
            VariantResult oracle = measure(kp, "naive oracle", oracle_for(kp.kernel), {}, false);
            for (const auto& d : oracle.dims) kr.baseline_cpes.push_back(d.cpe);
        }
        // The memcpy row first, so every variant's report can say how far it is from it.
        if (plan_.speed_of_light && !kp.variants.empty())
            kr.speed_of_light = measure(kp, "memcpy: speed of light (not scored)", speed_of_light_copy,
                                        kr.baseline_cpes, false);
        if (observer.kernel_started) observer.kernel_started(kr);
        for (const auto& v : kp.variants) {
            kr.variants.push_back(measure(kp, v.description, v.fn, kr.baseline_cpes, true));
            auto& vr = kr.variants.back();
            vr.graded = v.fn == kp.graded_fn;
            if (observer.measured) observer.measured(kp, v, vr);
            if (vr.complete() && (!kr.best || vr.mean_speedup > kr.variants[*kr.best].mean_speedup))
                kr.best = kr.variants.size() - 1;
            if (observer.variant_done) observer.variant_done(kr, vr);
        }
        results.push_back(std::move(kr));
    }
    return results;
}

}  // namespace perflab
