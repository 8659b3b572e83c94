// Executes a plan: checks each variant, times it with the K-best scheme against
// the baseline, and hands each finished variant to an observer. Every kernel runs
// in a kernel host - the student's, or the driver's own reference host for the
// oracle and the reference kernels - and is timed from here by that host's CPU
// time. It measures and returns results; it prints nothing.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "cache_clear.hpp"
#include "hosts.hpp"
#include "input_generator.hpp"
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

// Counters that follow a process: the host a call runs in (which a crash replaces).
class HostCounters {
public:
    virtual ~HostCounters() = default;
    virtual SampleCounters* for_process(pid_t pid) = 0;  // nullptr: none for it
};

struct RunnerObserver {
    std::function<void(const KernelResult&)> kernel_started;
    // A later measuring stage (the cache simulation) may add to a variant's result
    // before anyone sees it.
    std::function<void(const KernelPlan&, const Variant&, VariantResult&)> measured;
    std::function<void(const KernelResult&, const VariantResult&)> variant_done;
};

// What the runner measures with: the hosts, how their CPU time becomes cycles,
// the cache clearer, the inputs and (optionally) counters.
struct MeasuringTools {
    KernelHosts& hosts;
    const HostTiming& timing;
    CacheClearer& clearer;
    InputGenerator& inputs;
    HostCounters* counters = nullptr;
};

class Runner {
public:
    Runner(const Plan& plan, MeasuringTools tools);
    std::vector<KernelResult> run(const RunnerObserver& observer = {});

    // The oracle's CPE at each dimension of each planned kernel (--calibrate).
    std::vector<std::vector<double>> calibrate();

private:
    class Series;
    // Checks `v` (when `check`) and times it at every dimension of `kp`, against
    // the fixed baseline CPEs, or with `against_oracle` timed in turns with the
    // oracle, whose CPEs become this variant's baseline.
    VariantResult measure_variant(const KernelPlan& kp, const Variant& v, const std::vector<double>& fixed_baseline,
                                  bool check, bool against_oracle);
    // measure_variant's work; `dim` says which dimension it was at when it stopped.
    VariantResult measure_dims(const KernelPlan& kp, const Variant& v, const std::vector<double>& fixed_baseline,
                               bool check, bool against_oracle, int& dim);
    class EmptyCalls;
    KernelHost& host_for(const Variant& v);

    const Plan& plan_;
    MeasuringTools tools_;
    bool warmed_up_ = false;  // the run's first measurement has had its warm-up
};

}  // namespace perflab
