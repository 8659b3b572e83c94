// Grading a batch on a Slurm cluster: the hand-ins are split into a job array
// (one hand-in, or a small shard, per task), each task grades its shard on its
// own node with grade_handin and its own baseline, and writes one record file
// per hand-in; the submitting grader merges those into results.jsonl, the
// gradebook and feedback/ exactly as a local batch commits its records.
//
// Only Slurm's own tools are used (sbatch --array, squeue, sacct, scontrol,
// scancel). DIR, the hand-ins, the grader and its perflab directory must be
// visible at the same paths on every node (a shared filesystem).
#pragma once

#include <string>
#include <vector>

#include "batch.hpp"

namespace perflab::grader {

struct SlurmSettings {
    std::string partition;          // empty: the cluster's default partition
    std::size_t array_limit = 0;    // most tasks running at once (sbatch --array=...%N); 0: no limit
    std::size_t shard_size = 1;     // hand-ins per task
    bool exclusive_node = true;     // false: exclusive cores (--cpus-per-task) on a shared node
    int cpus_per_task = 2;          // with exclusive cores
    int retries = 2;                // resubmissions of a hand-in whose task failed, was preempted or timed out
    int time_minutes = 0;           // per task; 0: computed from the sandbox limits
    double poll_seconds = 5;        // how often squeue is read
    std::vector<std::string> sbatch_args;  // extra, e.g. --account=cs101 --qos=grading
};

// Throws std::runtime_error (one line, cause and remedy) when sbatch, squeue,
// scontrol or scancel is not on PATH.
void require_slurm_tools();

// The submitting side: submits, polls, retries, merges. Returns the exit status.
int run_slurm_batch(const BatchSettings& batch, const SlurmSettings& slurm);

// The task side, `grader slurm-task --batch DIR --submission K --task N`: grades
// shard N of submission K on this node and writes DIR/slurm/records/ID.json.
int run_slurm_task(const std::string& out_dir, int submission, int task);

// Where a Slurm batch keeps its own files, under DIR/slurm/ (DIR/baselines/
// holds the baselines themselves, as in a local batch).
class SlurmFiles {
public:
    explicit SlurmFiles(std::string out_dir) : out_(std::move(out_dir)) {}
    std::string dir() const { return out_ + "/slurm"; }
    std::string state() const { return dir() + "/state.json"; }             // submissions, attempts
    std::string plan(int n) const { return dir() + "/plans/" + std::to_string(n) + ".json"; }
    std::string script(int n) const { return dir() + "/plans/" + std::to_string(n) + ".sh"; }
    std::string records_dir() const { return dir() + "/records"; }         // ID.json from the tasks
    std::string baselines_dir() const { return dir() + "/baselines"; }     // JOB_TASK.json summaries
    std::string logs_dir() const { return dir() + "/logs"; }               // JOB_TASK.out
    std::string baseline_toml(const std::string& tag) const { return out_ + "/baselines/slurm-" + tag + ".toml"; }
    void create() const;

private:
    std::string out_;
};

}  // namespace perflab::grader
