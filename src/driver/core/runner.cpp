#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "call_cost.hpp"
#include "common/paired_ratio.hpp"
#include "common/statistics.hpp"

namespace perflab {

constexpr std::chrono::milliseconds kWarmUp{300};

// The timed calls of one function in its host, and what the samples saw.
class Runner::Series {
public:
    // `check` set: every timed call's output is judged against the oracle before
    // the next call reuses the images (a kernel that replays an earlier answer to
    // fresh input fails here). Unset for the driver's own kernels.
    Series(Runner& runner, const Variant& v, int dim, std::optional<Kernel> check)
        : runner_(runner), host_(runner.host_for(v)), fn_(v.host_function()), trial_(host_, dim), check_(check) {
        if (runner.tools_.counters) counters_ = runner.tools_.counters->for_process(host_.pid());
        if (counters_) brackets_.push_back(counters_);
    }

    // One sample in ticks, the call's own cost included, or -1 when the call failed
    // (see failure()).
    double sample() {
        // Fresh input and fresh poison before every sample, so a kernel cannot
        // return an answer it remembered from an earlier call.
        trial_.prepare(runner_.tools_.inputs, runner_.plan_.timeout_seconds);
        runner_.tools_.clearer.clear();
        HostCall call = trial_.run(fn_, runner_.plan_.timeout_seconds, brackets_);
        if (!call.outcome.ok() || check_) {
            failure_ = trial_.verify(check_.value_or(fn_.kernel), call.outcome);
            if (failure_ && call.outcome.ok()) failure_->during_timing = true;
            if (failure_) return -1;
        }
        if (counters_) per_sample_.push_back(counters_->per_pixel(pixels()));
        return double(call.cpu_ns) * runner_.tools_.timing.ticks_per_ns;
    }

    const std::optional<CheckFailure>& failure() const { return failure_; }
    // Drops what the samples so far saw, so that the counters of the sample K-best
    // keeps are found by its index among those taken from now on.
    void forget_samples() { per_sample_.clear(); }

    DimResult result(const KBestResult& k) const {
        DimResult d;
        d.dim = trial_.dim();
        d.cpe = k.best / pixels();
        d.samples = k.samples;
        d.converged = k.converged;
        for (double ticks : k.all) d.sample_cpes.push_back(ticks / pixels());
        if (k.best_index >= 0 && std::size_t(k.best_index) < per_sample_.size())
            d.counters = per_sample_[std::size_t(k.best_index)];
        return d;
    }

private:
    double pixels() const { return double(trial_.dim()) * double(trial_.dim()); }

    Runner& runner_;
    KernelHost& host_;
    HostFunction fn_;
    Trial trial_;
    std::optional<Kernel> check_;
    SampleCounters* counters_ = nullptr;
    std::vector<CallBracket*> brackets_;
    std::optional<CheckFailure> failure_;
    std::vector<CounterValues> per_sample_;
};

Runner::Runner(const Plan& plan, MeasuringTools tools) : plan_(plan), tools_(tools) {}

// What a call costs apart from its kernel: empty calls, taken in the same rounds as
// the kernels' samples and after the same preparation and clear (they leave the
// host's own call path cold, more so the larger the images: 2.9 us with warm
// caches, 3.0 at 64 and 128, 3.8-4.0 at 256, 4.3 at 512 here). At 64 that cost is as
// large as a kernel's, so it is taken as often as the kernels are: the least of
// thirty calls taken apart beforehand, subtracted from the least of hundreds, was a
// microsecond off from run to run. Each reads the lines of src, with that reading's
// own time taken out (empty_call_ticks): a kernel's reads evict what the host's
// reply path would find in the L1d after a call of nothing. Subtracting calls of
// nothing left the rotates at 64-128 a median 4.5% over their one-process CPEs (make
// bench-engine at 64-128, five runs each way alternated: 68 of 80 figures within the
// goal, 78 with the reads; with dst's lines written as well, the rotates at 64 fell
// to 0.87-0.98). They read what the cache clearing walks, twice the L1d, at most:
// reading all 1.5 MiB at 512 took 14-18 us, and the longer the reading, the likelier a
// disturbance in it that its time and the host's CPU time do not both see (once one
// empty call read 10 us cheaper than the least of the others, and its kernel 8%
// dearer); and at 256-512 the reads' whole effect on the reply (250-310 ns after
// 1,024 lines, in a scratch ping-pong) is under 3% of the fastest kernel's time
// there (the AVX-512 rotate at 256). The calls run in a copy of the
// driver's own reference host, never the student's (whose code could slow them down,
// or misreport its reads, to have more subtracted from its kernels), nor the oracle's
// (see KernelHosts::empty_calls).
class Runner::EmptyCalls {
public:
    EmptyCalls(Runner& runner, int dim)
        : runner_(runner), host_(runner.tools_.hosts.empty_calls()), trial_(host_, dim) {}

    double sample() {
        trial_.prepare(runner_.tools_.inputs, runner_.plan_.timeout_seconds);
        runner_.tools_.clearer.clear();
        return empty_call_ticks(host_, runner_.tools_.timing, runner_.tools_.clearer.bytes());
    }

private:
    Runner& runner_;
    KernelHost& host_;
    Trial trial_;
};

KernelHost& Runner::host_for(const Variant& v) {
    return v.in_reference_host() ? tools_.hosts.reference() : tools_.hosts.student();
}

VariantResult Runner::measure_variant(const KernelPlan& kp, const Variant& v, const std::vector<double>& fixed_baseline,
                                      bool check, bool against_oracle) {
    // A kernels file's host that dies taking its images fails this variant (the
    // host is started again for the next); the results so far stay.
    int dim = kOddDim;
    try {
        return measure_dims(kp, v, fixed_baseline, check, against_oracle, dim);
    } catch (const HostDied& e) {
        VariantResult vr;
        vr.name = v.description;
        vr.correct = false;
        vr.failure.emplace();
        vr.failure->kind = e.tampered    ? CheckFailure::Kind::tampered
                           : e.timed_out ? CheckFailure::Kind::timed_out
                                         : CheckFailure::Kind::crashed;
        vr.failure->dim = dim;
        vr.failure->detail = e.what();
        return vr;
    }
}

VariantResult Runner::measure_dims(const KernelPlan& kp, const Variant& v, const std::vector<double>& fixed_baseline,
                                   bool check, bool against_oracle, int& dim) {
    VariantResult vr;
    vr.name = v.description;
    auto fail = [&](CheckFailure f) {
        vr.correct = false;
        vr.failure = std::move(f);
        return vr;
    };
    const Variant oracle{kp.kernel, 0, "naive oracle", Variant::kOracle};
    const unsigned timeout = plan_.timeout_seconds;
    if (check)
        if (auto f = check_variant(host_for(v), v.host_function(), kOddDim, tools_.inputs, timeout)) return fail(*f);
    std::vector<double> speedups;
    for (std::size_t i = 0; i < kp.dims.size(); ++i) {
        dim = kp.dims[i];
        if (check)
            if (auto f = check_variant(host_for(v), v.host_function(), dim, tools_.inputs, timeout)) return fail(*f);
        Series variant(*this, v, dim, check ? std::optional(kp.kernel) : std::nullopt);
        EmptyCalls empty(*this, dim);
        std::vector<std::function<double()>> takers{[&] { return variant.sample(); }, [&] { return empty.sample(); }};
        std::optional<Series> baseline;
        if (against_oracle) {
            baseline.emplace(*this, oracle, dim, std::nullopt);
            takers.push_back([&] { return baseline->sample(); });
        }
        // The call's own cost comes out of every figure (call_cost.hpp).
        enum { kVariant, kEmpty, kOracle };
        const KBestConfig& kbest = plan_.kbest;
        auto speedup = [](const std::vector<KBestResult>& r) {
            return speedup_less_call_cost(r[kOracle].all, r[kVariant].all, r[kEmpty].all);
        };
        // Beside the oracle, sampling goes on until the speedup itself is sure
        // enough; K-best's agreement of one series says nothing about the ratio.
        auto sure = [&](bool resolved, const RatioEstimate& ratio) {
            return resolved && ratio.half_width() <= kbest.ratio_tolerance;
        };
        EnoughSamples enough = [&](const std::vector<KBestResult>& r) {
            if (baseline)
                return sure(speedup_call_cost_resolved(r[kOracle].all, r[kVariant].all, r[kEmpty].all), speedup(r));
            return !r[kEmpty].all.empty() && k_best_less_call_cost(r[kVariant].all, r[kEmpty].all, kbest).converged;
        };
        // The run's first figure would otherwise come from a machine that was idle a
        // moment ago: measured first in runs started after a pause, a blocked rotate at
        // 64 read 1.02-1.74 CPE in 22 runs, three times 3.2 (its call cost unresolved);
        // after this warm-up, 1.01-1.12 in 15 (in one process: 1.09-1.10).
        if (!warmed_up_) {
            warmed_up_ = true;
            if (!warm_up(takers, kWarmUp) && variant.failure()) return fail(*variant.failure());
            variant.forget_samples();
            if (baseline) baseline->forget_samples();
        }
        std::vector<KBestResult> k = k_best_interleaved(kbest, takers, enough);
        if (variant.failure()) return fail(*variant.failure());
        DimResult d = variant.result(k_best_less_call_cost(k[kVariant].all, k[kEmpty].all, kbest));
        d.call_cost_resolved = cpe_call_cost_resolved(k[kVariant].all, k[kEmpty].all, kbest.k);
        d.speedup_call_cost_resolved =
            baseline ? speedup_call_cost_resolved(k[kOracle].all, k[kVariant].all, k[kEmpty].all)
                     : d.call_cost_resolved;
        if (baseline) {
            DimResult b = baseline->result(k_best_less_call_cost(k[kOracle].all, k[kEmpty].all, kbest));
            d.baseline_cpe = b.cpe;
            d.baseline_sample_cpes = std::move(b.sample_cpes);
            const RatioEstimate r = speedup(k);
            d.speedup = r.value;
            d.speedup_low = r.low;
            d.speedup_high = r.high;
            d.typical_cpe = r.median_denominator / (double(dim) * double(dim));
            d.typical_baseline_cpe = d.typical_cpe * r.value;
            d.converged = sure(d.speedup_call_cost_resolved, r);
        }
        if (i < fixed_baseline.size()) d.baseline_cpe = fixed_baseline[i];
        if (d.baseline_cpe > 0 && d.speedup <= 0) d.speedup = d.baseline_cpe / d.cpe;
        if (d.speedup > 0) speedups.push_back(d.speedup);
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
            kr.speed_of_light = measure_variant(
                kp, {kp.kernel, 0, "memcpy: speed of light (not scored)", Variant::kSpeedOfLight}, {}, false, false);
        if (observer.kernel_started) observer.kernel_started(kr);
        for (const auto& v : kp.variants) {
            // The driver's own functions (explain's oracle and references) are
            // correct by construction and timed alone.
            const bool own = v.in_reference_host();
            kr.variants.push_back(measure_variant(kp, v, kp.fixed_baseline, !own, measure_baseline && !own));
            auto& vr = kr.variants.back();
            vr.graded = !own && (v.index == Variant::kGraded || v.address == kp.graded_address);
            if (observer.measured) observer.measured(kp, v, vr);
            if (vr.complete() && (!kr.best || vr.mean_speedup > kr.variants[*kr.best].mean_speedup))
                kr.best = kr.variants.size() - 1;
            if (observer.variant_done) observer.variant_done(kr, vr);
        }
        // The kernel's baseline: the fixed one, or the fastest the oracle ran
        // beside any variant.
        kr.baseline_cpes = kp.fixed_baseline;
        if (measure_baseline)
            for (const auto& vr : kr.variants) {
                if (vr.dims.empty() || vr.dims[0].baseline_cpe <= 0) continue;  // not timed beside the oracle
                for (std::size_t i = 0; i < vr.dims.size(); ++i) {
                    if (kr.baseline_cpes.size() <= i) kr.baseline_cpes.push_back(vr.dims[i].baseline_cpe);
                    kr.baseline_cpes[i] = std::min(kr.baseline_cpes[i], vr.dims[i].baseline_cpe);
                }
            }
        results.push_back(std::move(kr));
    }
    return results;
}

std::vector<std::vector<double>> Runner::calibrate() {
    std::vector<std::vector<double>> out;
    for (const auto& kp : plan_.kernels) {
        // The oracle is the definition of correct; timing it needs no check.
        VariantResult oracle = measure_variant(kp, {kp.kernel, 0, "naive oracle", Variant::kOracle}, {}, false, false);
        out.emplace_back();
        for (const auto& d : oracle.dims) out.back().push_back(d.cpe);
    }
    return out;
}

}  // namespace perflab
