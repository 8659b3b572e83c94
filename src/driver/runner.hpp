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

    // One variant at every dimension of `kp` (exposed for --calibrate and tests).
    VariantResult measure(const KernelPlan& kp, const std::string& name, lab_test_func fn,
                          const std::vector<double>& baseline, bool check);

private:
    struct Timing {
        KBestResult kbest;
        CounterValues counters;
        std::optional<CheckFailure> failure;
    };
    Timing time_variant(Kernel kernel, lab_test_func fn, int dim, bool check_last);

    const Plan& plan_;
    Clock& clock_;
    CacheClearer& clearer_;
    SampleCounters* counters_;
    std::mt19937_64 rng_;
};

}  // namespace perflab
