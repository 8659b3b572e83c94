// ./driver --explain: measures what a TA would look at when a speedup will not
// move (explain_measure.cpp), turns it into findings (explain_checks.cpp) and
// prints them (explain_report.cpp). See docs/explain.md for the finding ids.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/core/build_state.hpp"
#include "driver/core/cache_clear.hpp"
#include "driver/evidence/access_pattern.hpp"
#include "driver/evidence/cachegrind.hpp"
#include "common/clock.hpp"
#include "finding.hpp"
#include "driver/cli/options.hpp"
#include "driver/core/plan.hpp"
#include "driver/core/registry.hpp"
#include "driver/core/results.hpp"
#include "driver/core/runner.hpp"
#include "driver/core/student.hpp"
#include "common/system_noise.hpp"
#include "driver/evidence/tile_sweep.hpp"

namespace perflab {

// Per-pixel work and misses of one function, from the PMU or the simulation.
struct CacheFigures {
    std::optional<double> d1_read, d1_write, ll, instructions;
    // D1 misses of both kinds; loads only where the PMU counts only those.
    std::optional<double> d1() const;
    bool empty() const { return !d1_read && !d1_write && !ll && !instructions; }
};
CacheFigures figures_from(const CounterValues& rows);

struct FunctionEvidence {
    std::string name;
    std::optional<double> cpe;  // at the comparison dimension
    bool converged = true;
    CacheFigures figures;
    std::optional<double> speedup;           // over the oracle timed in turns with it
    std::optional<AccessPattern> pattern;    // from its access trace
    std::optional<double> faults_per_call;   // page faults, counted from outside the host
    std::optional<std::pair<double, double>> interval;  // 95% speedup interval, where timed in rounds
};

// How far apart timings of the same function lie in this run, and so which
// differences between two functions' speedups mean something. The spread is that
// of the oracle, timed in turns with every function at the comparison dimension.
struct Noise {
    double spread = 0;      // max/min - 1 of the same function's CPEs; 0 when unknown
    int samples = 0;        // how many CPEs of it there were
    double tolerance = 0;   // a speedup ratio within 1/(1+t) .. 1+t is within noise
};
Noise timing_noise(const std::vector<double>& same_function_cpes);
struct SpeedupGap {
    double ratio = 1;  // a / b
    double tolerance = 0;
    bool resolved = false;  // the ratio lies outside the noise band
};
// `converged`: both timings converged; otherwise the band is twice as wide.
SpeedupGap compare_speedups(double a, double b, const Noise& noise, bool converged);
// Whether two figures' 95% speedup intervals (from their paired rounds) overlap:
// then the run cannot tell which is faster. False when either has no interval.
bool speedup_intervals_overlap(const DimResult& a, const DimResult& b);

// A failing kernel checked at more dimensions than the run's.
struct DimCheck {
    int dim = 0;
    bool passed = false;
    std::string failure;  // kind of failure, when it failed ("timeout", "crashed", ...)
    std::string detail;   // what happened ("crashed with SIGFPE (integer division by zero)")
};

// A function of the student's named like the kernel that nothing registers or runs.
struct UnregisteredFunction {
    std::string name;
    std::optional<std::size_t> variant;  // into result.variants, when it was checked and timed
};

struct KernelEvidence {
    Kernel kernel = Kernel::rotate;
    int dim = 0;                        // the comparison dimension: the largest planned one
    KernelResult result;                // every planned dimension, variants in plan order
    std::vector<CacheFigures> figures;  // at `dim`, parallel to result.variants
    FunctionEvidence naive;             // the driver's oracle
    std::optional<FunctionEvidence> reference;
    std::string graded_symbol;                   // what rotate()/smooth() is called in the binary
    std::optional<std::string> graded_jumps_to;  // the function its first instruction jumps to
    bool graded_registered = true;               // false: measured under a name of explain's own
    std::vector<TilePoint> tile_sweep;           // rotate, with the reference kernels only
    std::vector<std::string> symbols;            // parallel to result.variants: the function's symbol
    std::vector<std::optional<AccessPattern>> patterns;  // parallel to result.variants
    std::vector<std::vector<DimCheck>> dim_checks;       // parallel: failing variants only
    std::vector<std::optional<double>> faults_per_call;  // parallel: correct variants only
    std::vector<UnregisteredFunction> unregistered;  // named like the kernel, neither registered nor run
    Noise noise;
    // Whether result.variants[i] is one the kernels file registered.
    bool registered(std::size_t i) const;
};

// The headline: what ./driver scores, from rotate()/smooth() timed (or modelled) at
// the dimensions it scores at, never from explain's one comparison dimension.
struct GradeLine {
    Kernel kernel = Kernel::rotate;
    std::vector<int> dims;
    std::string function;                // the graded variant's name
    std::optional<double> mean_speedup;  // none: it failed, or was not timed at every dim
    std::optional<double> points;
    double max_points = 0;
};
std::vector<GradeLine> grade_lines(const RunResult& scored);

struct ExplainData {
    std::vector<KernelEvidence> kernels;
    std::vector<GradeLine> grade;  // empty: not scored
    std::string figures_source;                      // "" when there are no miss figures
    std::optional<std::string> figures_unavailable;  // why not
    bool geometry_given = false;                     // simulated with --cache-geometry, not this machine's
    std::optional<std::string> trace_unavailable;    // why there are no access traces
    std::optional<std::string> unregistered_uncalled;  // why unregistered functions were only named
    std::optional<std::string> counters_unavailable;
    bool reference_kernels = false;
    BuildState build;
    std::optional<L1Geometry> l1;        // this machine's L1d: cacheprobe's, else the OS's
    std::optional<L1Geometry> given_l1;  // --cache-geometry's D1, which the access traces simulated instead
    SystemState system;
    KBestConfig kbest;
    int pinned_cpu = -1;
    std::string pin_error;
};

// What main() has set up for a run, reused by --explain.
struct ExplainSetup {
    const Plan& plan;
    const Registry& registry;
    const StudentFile& student;
    const RunResult& run;  // machine, clock, pinning, counters_unavailable
    MeasuringTools tools;  // tools.counters null: no PMU, so the figures are simulated
};

// --explain compares at one dimension unless --dims says otherwise.
inline constexpr int kExplainDim = 256;
Options explain_options(const Options& options);

ExplainData measure_for_explain(const ExplainSetup& setup);
std::vector<Finding> explain_checks(const ExplainData& data);

// The answer first: per kernel (and for the build), the one finding that matters
// most and its fix - at most three lines of text each.
struct SummaryLine {
    std::optional<Kernel> kernel;  // none: the build
    std::string id, title, fix;
    int more_problems = 0;  // other problems of the kernel, below
};
std::vector<SummaryLine> explain_summary(const ExplainData& data, const std::vector<Finding>& findings);
std::string summary_text(const std::vector<SummaryLine>& summary);
std::string grade_text(const std::vector<GradeLine>& grade);

std::string explain_text(const ExplainData& data, const std::vector<Finding>& findings);
std::string explain_json(const ExplainData& data, const std::vector<Finding>& findings);

}  // namespace perflab
