// A Slurm batch's settings as the instructor's policy file gives them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perflab::grader {

// What each integer Slurm option may be, on the command line and in `[slurm]`
// alike (where 0 also means the default for time_minutes).
struct SlurmRange {
    long long least, most;
};
inline constexpr SlurmRange kShardSizes{1, 1000}, kSlurmCpus{1, 4096}, kSlurmRetries{0, 100}, kSlurmMinutes{1, 100000};

// The `[slurm]` table of the policy TOML (which the scoring policy parser
// ignores): enabled, partition, array_limit, shard_size, exclusive = "node" |
// "cores", cpus_per_task, retries, time_minutes, sbatch_args; what the table
// leaves out stays unset, for the command line's values or the defaults.
// Throws std::runtime_error naming the key and the expected type or range.
struct SlurmFileOptions {
    bool enabled = false;
    std::optional<std::string> partition, exclusive;
    std::optional<std::size_t> array_limit, shard_size;
    std::optional<int> cpus_per_task, retries, time_minutes;
    std::optional<std::vector<std::string>> sbatch_args;
};
SlurmFileOptions read_slurm_options(const std::string& policy_file);

}  // namespace perflab::grader
