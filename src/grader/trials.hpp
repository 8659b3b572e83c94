// Running a built hand-in's driver in the sandbox, N times, and reading each
// run only from the JSON report on the pipe - never from what it printed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "outcome.hpp"
#include "driver/core/scoring.hpp"
#include "common/subprocess.hpp"

namespace perflab::grader {

struct SandboxSettings {
    double wall_seconds = 600;
    rlim_t cpu_seconds = 600;
    rlim_t memory_bytes = 4ull << 30;
    rlim_t processes = 64;
    rlim_t open_files = 64;
    rlim_t file_size_bytes = 16ull << 20;
};

struct DriverRun {
    Finished finished;
    std::optional<nlohmann::json> report;  // the parsed report, when one arrived whole
};

// Runs the `driver` command with `args` plus `--json /dev/fd/3` in `cwd` under the limits.
DriverRun run_sandboxed(const std::vector<std::string>& driver, const std::vector<std::string>& args, const std::string& cwd,
                        const SandboxSettings& sandbox);

// The member of a variant in the driver's JSON report that holds the speedup the
// points are for on `basis` (docs/report.schema.json).
const char* speedup_key(Basis basis);

struct KernelTrial {
    bool correct = false;
    double speedup = 0;
};

struct Trial {
    Outcome outcome;
    KernelTrial rotate, smooth;  // rotate() and smooth(), the graded functions
};

// One run's verdict. A run that did not exit 0 is judged by how it ended, whatever
// arrived on fd 3 (a report written before a crash or a kill earns nothing); otherwise
// the first failing kernel decides the status. The speedup is the one the points are
// for: timed, or on the model machine (a kernel whose model figures the driver
// withheld, having caught it behaving otherwise under the simulator, is forbidden).
Trial judge(const DriverRun& run, const SandboxSettings& sandbox, Basis basis = Basis::timing);

struct TrialSet {
    Outcome outcome;
    KernelTrial rotate, smooth;  // speedups are the medians over the trials
    int trials = 0;
    std::string last_output;     // the driver's text report of the last trial
    std::optional<nlohmann::json> last_report;  // and its JSON report, for the feedback page
    // The kernels whose grade the trials left unsettled (see grade_settled) when they
    // stopped.
    std::vector<Kernel> unsettled;
    std::vector<double> rotate_speedups, smooth_speedups;  // every correct trial's, in order
};

// When the trials asked for do not settle a kernel's grade, the grader runs more, up
// to `most`, and the median of them all counts. Settled: with a stepped policy, the
// median's interval (median_interval) lies within one step, so no edge between grades
// falls inside what the trials could not tell apart; without steps, the trials
// agree within kTrialAgreement (max/min - 1). The driver's own figures are sure to
// +/-3% within a run; runs apart differ by more when the machine changes under them.
inline constexpr double kTrialAgreement = 0.03;
bool grade_settled(const KernelPolicy& policy, const std::vector<double>& speedups);

struct TrialBudget {
    int least = 3;  // always run
    int most = 6;   // never more, settled or not
};
// The model's figures are the same on every run: one trial settles them.
inline constexpr TrialBudget kModelTrials{1, 1};
// Whether `done` trials with these speedups so far are enough.
bool enough_trials(const ScoringPolicy& policy, const std::vector<double>& rotate, const std::vector<double>& smooth,
                   int done, TrialBudget budget);

// One trial at a time, so that a batch can run other hand-ins' trials between
// two of one hand-in's. A kernel that fails a trial earns nothing; the trials go
// on for the other as for any hand-in, and stop once neither can earn (repeating a
// crash only costs time). The outcome is the first trial's that was not ok.
// `add_trial` takes a run's verdict; `trials_done` says whether the set is
// complete; `settle_trials` takes the medians.
void add_trial(TrialSet& set, const DriverRun& run, const SandboxSettings& sandbox, Basis basis);
bool trials_done(const TrialSet& set, const ScoringPolicy& policy, TrialBudget budget);
void settle_trials(TrialSet& set, const ScoringPolicy& policy);

}  // namespace perflab::grader
