// A class's hand-ins graded into an output directory that survives the grader
// being killed: results.jsonl, gradebook.csv, feedback/, baselines/ and
// batch.json. A local batch and a Slurm batch share all of it (batch_run.hpp)
// but how the hand-ins get graded.
#pragma once

#include <optional>
#include <string>

#include "grade.hpp"
#include "results_store.hpp"

namespace perflab::grader {

struct BatchSettings {
    GradeSettings grade;
    std::string handins_dir, out_dir;
    bool force = false;
    // 0: every hand-in's driver times the oracle in turns with its kernels (the
    // fair default: a batch baseline drifted 8-13% within ten hand-ins here);
    // M: one baseline for the batch, measured again every M hand-ins.
    std::size_t recalibrate_every = 0;
    std::optional<std::string> fixed_baseline;  // instead of measuring one
    // Hand-ins graded at once under the model basis (0: one per CPU); see schedule_for.
    std::size_t jobs = 0;
};


// Returns the process exit status: 0 when every hand-in has a grade, 1 when some
// records are internal-errors. Throws std::runtime_error when another grader
// holds DIR, DIR was graded with other settings, or the driver refuses them.
int run_batch(const BatchSettings& settings);

// What every batch (local or Slurm) does with a graded hand-in: its feedback
// first (a record promises its feedback exists), then the record, then the
// gradebook rewritten from all records.
void commit_graded(const std::string& out_dir, ResultsStore& store, const Graded& graded, const ScoringPolicy& policy);
// The one-line summary the progress shows for a record.
std::string summary(const Record& r);

}  // namespace perflab::grader
