// Which records a run into an existing DIR keeps and which hand-ins it grades,
// for a local and a Slurm batch alike, and how the batch's end is reported.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "batch_state.hpp"
#include "discovery.hpp"
#include "results_store.hpp"

namespace perflab::grader {

struct ResumePlan {
    std::vector<Handin> todo;                    // in ID order
    std::set<std::string> stale;                 // records to drop: regraded, or their hand-in is gone
    std::vector<std::string> notes;              // what the instructor is told before grading
    BatchState state;                            // what batch.json says during this run
    bool forced = false;                         // --force: this run finishes a forced regrade
    bool resumed_force = false;                  // --force continues a forced regrade a kill interrupted
};

// A hand-in is graded when it has no record, its record is an internal-error
// (the grader's fault, not a grade), its file changed since (by sha256; records
// without one are kept), or --force asked and its record predates the forced
// regrade's start (a rerun of a killed forced batch resumes it). Throws
// std::runtime_error when DIR holds records graded with other settings and
// there is no --force.
ResumePlan plan_resume(const std::string& out_dir, const std::vector<Handin>& handins, const ResultsStore& store,
                       const BatchSettings& s);

// Drops the plan's stale records and writes its state, once the settings are
// known to work: a refused run leaves DIR as it was.
void start_resumed(const std::string& out_dir, ResultsStore& store, const ResumePlan& plan);

// Records the end (a forced regrade is complete; a run without --force leaves an
// unfinished one for the next --force) and returns the exit status: 1, with a
// line saying how many, when records are internal-errors.
int finish_batch(const std::string& out_dir, const ResultsStore& store, const ResumePlan& plan);

}  // namespace perflab::grader
