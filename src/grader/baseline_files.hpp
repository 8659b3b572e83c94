// The baselines a batch measured, known by their names in DIR/baselines/: a local
// batch writes START-AFTER.toml (its grader process's start in ns, and how many
// hand-ins that process had graded), a Slurm task slurm-JOB_TASK-NODE.toml (a task
// measures before it grades).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace perflab::grader {

struct MeasuredBaseline {
    std::string path;
    bool from_slurm = false;
    long long started_ns = 0;       // a local batch's; 0 for a Slurm task's, which has none
    std::size_t after_handins = 0;  // 0 for a Slurm task's
    std::pair<long long, long long> order;  // (start, after) or (job, task): sorts in time
};

// Every baseline file in `dir` named as above, in the order they were measured;
// other files are left out.
std::vector<MeasuredBaseline> measured_baselines(const std::string& dir);

}  // namespace perflab::grader
