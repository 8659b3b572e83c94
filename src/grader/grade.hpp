// One hand-in from source to record: extract, build, check, run the trials,
// score. Everything happens in a private directory that is removed afterwards.
// A batch may take the steps apart (HandinGrading) to run other hand-ins' trials
// between two of this one's.
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
    int max_trials = 0;  // while a grade is unsettled (see trials.hpp); 0: twice `trials`
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

// One hand-in's grading in steps: built when made, then one trial per run_trial
// until wants_trial() is false, then finish(). Its private directory lives as
// long as it does.
class HandinGrading {
public:
    // `baseline_file`: the one the first trial will use (a record that ends before
    // any trial names it too).
    HandinGrading(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                  std::string work_dir);
    ~HandinGrading();
    HandinGrading(const HandinGrading&) = delete;
    HandinGrading& operator=(const HandinGrading&) = delete;

    const std::string& id() const { return record_.id; }
    bool wants_trial() const;
    // `baseline_file` (absolute; empty: the run measures its own) is passed to the
    // driver; the record names the last trial's.
    void run_trial(const std::string& baseline_file);
    // The last trial's run, when its report arrived whole (for the batch's own notes).
    const std::optional<nlohmann::json>& last_report() const { return set_.last_report; }
    Graded finish();

private:
    void fail_internally(const std::exception& e);
    const GradeSettings& settings_;
    std::string work_dir_;
    Record record_;
    std::string log_;                   // the build's, for the feedback
    std::optional<Graded> ended_;       // before any trial: unusable, no build, the grader's own failure
    std::vector<std::string> driver_, args_;
    std::string input_dir_;
    TrialSet set_;
};

// All steps in a row, with the same baseline for every trial.
Graded grade_handin(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                    const std::string& work_dir);

}  // namespace perflab::grader
