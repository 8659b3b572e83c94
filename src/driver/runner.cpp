#include "runner.hpp"

#include <algorithm>

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

// The timed calls of one function on a trial's images, and what the samples saw.
// A variant and the oracle timed beside it share one trial: where an image lies in
// memory changes a small kernel's CPE by as much as 20% on these machines, and
// sharing makes that the same for both.
class Runner::Series {
public:
    // `kernel` set: every timed call's output is judged against the oracle before
    // the next call reuses the images (a kernel that replays an earlier answer to
    // fresh input fails here). Unset for the driver's own kernels.
    Series(Runner& runner, lab_test_func fn, Trial& trial, std::optional<Kernel> kernel)
        : runner_(runner), fn_(fn), trial_(trial), kernel_(kernel), clock_(runner.clock_) {
        if (runner.counters_) brackets_.push_back(runner.counters_);
        brackets_.push_back(&clock_);  // innermost: the clock times only the call
    }

    // One sample in ticks, or -1 when the call failed (see failure()).
    double sample() {
        // Fresh input and fresh poison before every sample, so a kernel cannot
        // return an answer it remembered from an earlier call.
        trial_.prepare(runner_.rng_);
        runner_.clearer_.clear();
        CallOutcome outcome = trial_.run(fn_, runner_.plan_.timeout_seconds, brackets_);
        if (!outcome.ok() || kernel_) {
            failure_ = trial_.verify(kernel_.value_or(Kernel::rotate), outcome);
            if (failure_ && outcome.ok()) failure_->during_timing = true;
            if (failure_) return -1;
        }
        if (runner_.counters_) per_sample_.push_back(runner_.counters_->per_pixel(pixels()));
        // A zero-tick sample (a clock coarser than the call) still counts as one
        // tick: a CPE is always positive.
        return double(std::max<std::uint64_t>(clock_.ticks(), 1));
    }

    const std::optional<CheckFailure>& failure() const { return failure_; }

    DimResult result(const KBestResult& k) const {
        DimResult d;
        d.dim = trial_.dim();
        d.cpe = k.best / pixels();  // a tick is the report's cycle
        d.samples = k.samples;
        d.converged = k.converged;
        if (k.best_index >= 0 && std::size_t(k.best_index) < per_sample_.size())
            d.counters = per_sample_[std::size_t(k.best_index)];
        return d;
    }

private:
    double pixels() const { return double(trial_.dim()) * double(trial_.dim()); }

    Runner& runner_;
    lab_test_func fn_;
    Trial& trial_;
    std::optional<Kernel> kernel_;
    ClockBracket clock_;
    std::vector<CallBracket*> brackets_;
    std::optional<CheckFailure> failure_;
    std::vector<CounterValues> per_sample_;
};

Runner::Runner(const Plan& plan, Clock& clock, CacheClearer& clearer, SampleCounters* counters)
    : plan_(plan), clock_(clock), clearer_(clearer), counters_(counters), rng_(plan.seed) {}

VariantResult Runner::measure(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                              const std::vector<double>& baseline, bool check) {
    return measure_variant(kp, name, fn, baseline, check, false);
}

VariantResult Runner::measure_variant(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                                      const std::vector<double>& fixed_baseline, bool check, bool against_oracle) {
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
        const int dim = kp.dims[i];
        if (check)
            if (auto f = check_variant(kp.kernel, fn, dim, rng_, plan_.timeout_seconds)) return fail(*f);
        Trial trial(dim);
        Series variant(*this, fn, trial, check ? std::optional(kp.kernel) : std::nullopt);
        std::vector<std::function<double()>> takers{[&] { return variant.sample(); }};
        std::optional<Series> oracle;
        if (against_oracle) {
            oracle.emplace(*this, oracle_for(kp.kernel), trial, std::nullopt);
            takers.push_back([&] { return oracle->sample(); });
        }
        std::vector<KBestResult> k = k_best_interleaved(plan_.kbest, takers);
        if (variant.failure()) return fail(*variant.failure());
        DimResult d = variant.result(k[0]);
        if (oracle) d.baseline_cpe = oracle->result(k[1]).cpe;
        if (i < fixed_baseline.size()) d.baseline_cpe = fixed_baseline[i];
        if (d.baseline_cpe > 0) {
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
        const bool measure_baseline = kp.fixed_baseline.empty();
        // The memcpy row first, so every variant's report can say how far it is from it.
        if (plan_.speed_of_light && !kp.variants.empty())
            kr.speed_of_light = time_unchecked(kp, "memcpy: speed of light (not scored)", speed_of_light_copy);
        if (observer.kernel_started) observer.kernel_started(kr);
        for (const auto& v : kp.variants) {
            kr.variants.push_back(
                measure_variant(kp, v.description, v.fn, kp.fixed_baseline, true, measure_baseline));
            auto& vr = kr.variants.back();
            vr.graded = v.fn == kp.graded_fn;
            if (observer.measured) observer.measured(kp, v, vr);
            if (vr.complete() && (!kr.best || vr.mean_speedup > kr.variants[*kr.best].mean_speedup))
                kr.best = kr.variants.size() - 1;
            if (observer.variant_done) observer.variant_done(kr, vr);
        }
        // The kernel's baseline: the fixed one, or the fastest the oracle ran
        // beside any variant.
        kr.baseline_cpes = kp.fixed_baseline;
        if (measure_baseline)
            for (const auto& vr : kr.variants)
                for (std::size_t i = 0; i < vr.dims.size(); ++i) {
                    if (kr.baseline_cpes.size() <= i) kr.baseline_cpes.push_back(vr.dims[i].baseline_cpe);
                    kr.baseline_cpes[i] = std::min(kr.baseline_cpes[i], vr.dims[i].baseline_cpe);
                }
        results.push_back(std::move(kr));
    }
    return results;
}

VariantResult Runner::time_unchecked(const KernelPlan& kp, const std::string& name, lab_test_func fn) {
    return measure(kp, name, fn, {}, false);
}

std::vector<std::vector<double>> Runner::calibrate() {
    std::vector<std::vector<double>> out;
    for (const auto& kp : plan_.kernels) {
        // The oracle is the definition of correct; timing it needs no check.
        VariantResult oracle = time_unchecked(kp, "naive oracle", oracle_for(kp.kernel));
        out.emplace_back();
        for (const auto& d : oracle.dims) out.back().push_back(d.cpe);
    }
    return out;
}

}  // namespace perflab
