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

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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

// Fills unset fields from the `[slurm]` table of the policy TOML (which the
// scoring policy parser ignores): partition, array_limit, shard_size,
// exclusive = "node" | "cores", cpus_per_task, retries, time_minutes,
// sbatch_args. Returns whether the table says `enabled = true`. Throws
// std::runtime_error naming the key and the expected type.
struct SlurmFileOptions {
    bool enabled = false;
    std::optional<std::string> partition, exclusive;
    std::optional<std::size_t> array_limit, shard_size;
    std::optional<int> cpus_per_task, retries, time_minutes;
    std::optional<std::vector<std::string>> sbatch_args;
};
SlurmFileOptions read_slurm_options(const std::string& policy_file);

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

// --- pieces with their own tests ------------------------------------------

// How a finished array task ended, as Slurm says it.
struct TaskEnd {
    std::string state;      // COMPLETED, FAILED, TIMEOUT, PREEMPTED, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, UNKNOWN
    std::string reason;     // Slurm's Reason (scontrol) or "" (sacct has none)
    std::string exit_code;  // "1:0"
    std::string node;
    std::string source;     // "sacct", "scontrol", or why neither knew
};

// `scontrol -o show job J` output (one line per job record) -> array task -> end.
// Records whose ArrayTaskId is a range (pending tasks) are skipped.
std::map<int, TaskEnd> parse_scontrol_jobs(const std::string& text);
// `sacct -n -P -X -o JobID,State,ExitCode,NodeList` output -> array task -> end.
std::map<int, TaskEnd> parse_sacct(const std::string& text, const std::string& array_job);

// One live array task from `squeue -h -r -o %F|%K|%T|%N|%r`.
struct LiveTask {
    std::string job;  // array job id
    int task = -1;
    std::string state;  // PENDING, RUNNING, COMPLETING, ...
    std::string node, reason;
};
std::vector<LiveTask> parse_squeue(const std::string& text);

// Baselines measured by the tasks, compared across nodes: each one's deviation
// from the per-dimension median of all of them, the spread, and the outliers.
struct NodeBaseline {
    std::string node, file, task, measured_on;
    std::map<int, double> rotate, smooth;  // CPE per dimension
};
// Deviation (percent) above which a baseline is an outlier: 10%, or three
// robust standard deviations of all the deviations when the cluster is noisier.
nlohmann::json compare_baselines(const std::vector<NodeBaseline>& baselines);

}  // namespace perflab::grader
