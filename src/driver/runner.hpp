// Executes a plan: checks each variant, times it with the K-best scheme against
// the baseline, and hands each finished variant to an observer. It measures and
// returns results; it prints nothing.
#pragma once

#include <functional>
#include <memory>

#include "cache_clear.hpp"
#include "clock.hpp"
#include "plan.hpp"
#include "results.hpp"

namespace perflab {

// Counters read around each timed call; the runner keeps the figures of the
// sample that K-best kept.
class SampleCounters : public CallBracket {
public:
    // The last call's values, already divided by the pixel count.
    virtual CounterValues per_pixel(double pixels) = 0;
};

struct RunnerObserver {
    std::function<void(const KernelResult&)> kernel_started;
    // A later measuring stage (the cache simulation) may add to a variant's result
    // before anyone sees it.
    std::function<void(const KernelPlan&, const Variant&, VariantResult&)> measured;
    std::function<void(const KernelResult&, const VariantResult&)> variant_done;
};

class Runner {
public:
    Runner(const Plan& plan, Clock& clock, CacheClearer& clearer, SampleCounters* counters = nullptr);
    std::vector<KernelResult> run(const RunnerObserver& observer = {});

    // The oracle's CPE at each dimension of each planned kernel (--calibrate).
    std::vector<std::vector<double>> calibrate();

    // Checks `fn` (when `check`) and times it at every dimension of `kp` against
    // the given baseline CPEs (none: no speedups).
    VariantResult measure(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                          const std::vector<double>& baseline, bool check);

    // Times one of the driver's own kernels (the oracle, a reference kernel) at
    // every dimension of `kp`: no check, no baseline.
    VariantResult time_unchecked(const KernelPlan& kp, const std::string& name, lab_test_func fn);

private:
    class Series;
    // measure(), or with `against_oracle` timed in turns with the oracle, whose
    // CPEs become this variant's baseline.
    VariantResult measure_variant(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                                  const std::vector<double>& fixed_baseline, bool check, bool against_oracle);

    const Plan& plan_;
    Clock& clock_;
    CacheClearer& clearer_;
    SampleCounters* counters_;
    std::mt19937_64 rng_;
};

}  // namespace perflab
