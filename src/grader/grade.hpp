// One hand-in from source to record: extract, build, check, run the trials,
// score. Everything happens in a private directory that is removed afterwards.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "build.hpp"
#include "discovery.hpp"
#include "layout.hpp"
#include "record.hpp"
#include "driver/core/scoring.hpp"
#include "trials.hpp"

namespace perflab::grader {

struct GradeSettings {
    Layout layout;
    int trials = 3;
    int max_trials = 0;  // while a grade is unsettled (see run_trials); 0: twice `trials`
    int most_trials() const { return max_trials > 0 ? max_trials : 2 * trials; }
    std::vector<std::string> driver_args;  // e.g. --dims 64,128 for quick runs
    SandboxSettings sandbox;
    BuildSettings build;
    ScoringPolicy policy = default_policy();
};

struct Graded {
    Record record;
    std::string feedback;  // the student's driver report and the reason
    std::optional<nlohmann::json> report;  // the last trial's JSON report, when one arrived
};

// `baseline_file` (absolute; empty: each run measures its own) is passed to the driver.
Graded grade_handin(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                    const std::string& work_dir);

}  // namespace perflab::grader
