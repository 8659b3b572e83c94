// What Slurm's tools answer, read field by field: sbatch, squeue, scontrol, sacct.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perflab::grader {

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

// The job id in `sbatch --parsable` output ("12" or "12;cluster"); nullopt when
// the answer is not one.
std::optional<std::string> parse_sbatch_job(const std::string& text);

}  // namespace perflab::grader
