// The skeleton every batch runs, local or on Slurm, and the seam where they
// differ: how the hand-ins to grade get graded.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "batch.hpp"
#include "batch_resume.hpp"
#include "progress.hpp"
#include "results_store.hpp"

namespace perflab::grader {

// One run of a batch into DIR, as its backend sees it.
struct BatchRun {
    BatchRun(const BatchSettings& s, std::string out_dir, std::vector<Handin> all, std::string work)
        : settings(s), out(std::move(out_dir)), handins(std::move(all)), store(out + "/results.jsonl"),
          work_root(std::move(work)) {}
    const BatchSettings& settings;
    std::string out;                  // DIR, absolute
    std::vector<Handin> handins;      // all of HANDINS
    ResultsStore store;
    ResumePlan plan;
    std::set<std::string> todo;       // the IDs of plan.todo
    std::string work_root;            // this run's scratch directory
    std::unique_ptr<Progress> progress;  // once the plan is made

    // Commits a graded hand-in (commit_graded) and counts it in the progress when
    // this run grades it. Safe to call from several threads.
    void commit(const Graded& graded);

private:
    std::mutex commit_lock_;
};

// What differs between grading here and on Slurm.
class BatchBackend {
public:
    virtual ~BatchBackend() = default;
    // Before the resume plan: what an earlier run graded but did not commit.
    virtual void recover(BatchRun&) {}
    // Once the settings are known to work, before DIR changes (start_resumed).
    virtual void before_start(BatchRun&) {}
    // Grades run.plan.todo (not empty), committing each through run.commit.
    virtual void grade(BatchRun& run) = 0;
};

// The batch's skeleton: hand-ins found, DIR locked, the resume planned, the
// settings checked, the plan started, the todo graded by `backend`, the
// gradebook and the page written (also when nothing was to be graded), the end
// reported. Returns the exit status as run_batch.
int run_batch_with(const BatchSettings& settings, BatchBackend& backend);

}  // namespace perflab::grader
