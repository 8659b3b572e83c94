// What a run measured: the one structure the runner fills and every report reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker.hpp"
#include "kernel.hpp"
#include "common/cpu_activity.hpp"
#include "common/machine.hpp"
#include "scoring.hpp"
#include "common/sampler.hpp"
#include "student.hpp"

namespace perflab {

// Per-pixel figures from the PMU or from the cache simulation, in a stable order.
using CounterValues = std::vector<std::pair<std::string, double>>;

// One dimension on the policy's model machine (docs/model.md): the same, bit for
// bit, on every run of the same binaries.
struct ModelFigures {
    double cycles_per_pixel = 0;
    double oracle_cycles_per_pixel = 0;
    double speedup = 0;  // oracle's / this variant's
};

struct DimResult {
    int dim = 0;
    double cpe = 0;
    double baseline_cpe = 0;
    double speedup = 0;
    // The speedup's ~95% interval, when it came from rounds paired with the oracle
    // (both 0 with a fixed baseline: that figure has no interval of its own).
    double speedup_low = 0, speedup_high = 0;
    // The typical round those paired ratios stand for (paired_ratio's median pair),
    // the variant's CPE and the oracle's beside it: they divide to `speedup`, where
    // the fastest CPEs above need not. Both 0 with a fixed baseline.
    double typical_cpe = 0, typical_baseline_cpe = 0;
    int samples = 0;
    bool converged = false;  // paired: the interval is within the tolerance; else K-best agreed
    // The kernel's calls stood clear of the call's own noise, so its cost came out of
    // the CPE, and of the speedup (call_cost.hpp); when not, the figure keeps it and is
    // not converged. The speedup asks more when timed beside the oracle, so it can keep
    // the cost that a resolved CPE shed; with a fixed baseline both agree.
    bool call_cost_resolved = true;
    bool speedup_call_cost_resolved = true;
    CounterValues counters;   // per pixel, from the sample K-best kept
    CounterValues simulated;  // per pixel, from cachegrind
    std::optional<ModelFigures> model;
    // Every sample's CPE in the order taken, the kept one among them: what
    // --compare decides "faster / slower / within noise" from.
    std::vector<double> sample_cpes;
    std::vector<double> baseline_sample_cpes;  // the oracle's, when timed beside this variant
};

struct VariantResult {
    std::string name;  // the registered description
    bool correct = true;
    std::optional<CheckFailure> failure;
    std::vector<DimResult> dims;
    double mean_speedup = 0;  // geometric mean; 0 unless every dim was timed
    bool graded = false;      // the student's rotate()/smooth(), which the grader times
    std::optional<double> points;  // what the policy gives its speedup on the policy's basis
    // On the model machine: the geometric mean of the dims' model speedups, when the
    // model ran at every dim and nothing flagged it, and what the policy gives it.
    std::optional<double> model_mean_speedup;
    std::optional<double> model_points;
    // Why the model's figures were withheld: the code ran otherwise under the
    // simulator than on the machine, or touched what the model counts.
    std::optional<std::string> model_flag;
    bool complete() const { return correct && mean_speedup > 0; }
    bool converged() const;
};

struct KernelResult {
    Kernel kernel = Kernel::rotate;
    std::vector<int> dims;
    std::vector<VariantResult> variants;
    std::vector<double> baseline_cpes;          // per dim, same order as dims
    std::optional<VariantResult> speed_of_light;  // the memcpy row, never scored
    std::optional<std::size_t> best;            // index into variants
    std::optional<double> points;               // from the scoring policy
    double max_points = 0;
    std::vector<std::pair<double, double>> curve;  // the policy's (speedup, points), for the page's chart
    std::string points_from;                    // which variant the points are for
    std::string notice;                         // e.g. no variant registered
};

struct ClockInfo {
    std::string name;
    std::string description;
    double ticks_per_second = 0;
    int pinned_cpu = -1;
    std::string pin_error;
};

struct RunConfig {
    std::optional<unsigned> seed;  // none: the inputs came from a secret key
    KBestConfig kbest;
    std::string baseline_mode;  // "measured" or "file:<path>"
    bool autograder = false;
    unsigned timeout_seconds = 0;
    std::size_t cache_clear_bytes = 0;
    std::string policy_source;
};

// What the student's kernels file printed (its host's stdout and stderr, every start
// of it), made visible (untrusted_text.hpp): its output, never the driver's.
struct HostPrinted {
    std::string text;         // its last bytes (HostOutput::kKeptBytes at most), made visible
    std::uint64_t bytes = 0;  // all it printed
    bool cut = false;         // `text` is only the end of it
};

struct RunResult {
    std::optional<Team> team;  // absent when the team check was skipped
    MachineInfo machine;
    ClockInfo clock;
    RunConfig config;
    std::vector<KernelResult> kernels;
    std::optional<std::string> clock_notice;  // why the requested clock is not the one used
    std::optional<std::string> counters_unavailable;
    std::optional<std::string> simulation_unavailable;
    std::string simulation_geometry;
    Basis basis = Basis::timing;  // what the points are for (the policy's)
    std::optional<MachineModel> model;  // the model machine, whenever model figures were asked for
    std::optional<std::string> model_unavailable;  // why the model stopped
    std::optional<double> total_points;
    // The allowed CPUs as the driver saw them just before choosing the quietest (empty:
    // --cpu chose, or there was one), and what other tasks took from the run meanwhile.
    std::vector<CpuBusyness> cpus_before;
    std::optional<InterferenceMeter::Reading> interference;
    std::optional<HostPrinted> host_printed;  // absent: kernels.c printed nothing
    const KernelResult* find(Kernel k) const;
};

}  // namespace perflab
