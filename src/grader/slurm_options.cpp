#include "slurm_options.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "common/toml_file.hpp"

namespace perflab::grader {

SlurmFileOptions read_slurm_options(const std::string& policy_file) {
    SlurmFileOptions o;
    toml::table root = parse_toml(read_text_file(policy_file, "policy"), policy_file,
                                  "a policy file is TOML with [rotate], [smooth] and [slurm] tables (docs/grader.md)");
    const toml::table* t = root["slurm"].as_table();
    if (!t) return o;
    auto bad = [&](const char* key, const char* type) {
        return std::runtime_error(fmt::format("{}: [slurm] {} must be {}", policy_file, key, type));
    };
    for (const auto& [key, node] : *t) {
        std::string k(key.str());
        if (k == "enabled") {
            if (!node.is_boolean()) throw bad("enabled", "true or false");
            o.enabled = *node.value<bool>();
        } else if (k == "partition") {
            if (!node.is_string()) throw bad("partition", "a string");
            o.partition = *node.value<std::string>();
        } else if (k == "exclusive") {
            auto v = node.value<std::string>();
            if (!v || (*v != "node" && *v != "cores")) throw bad("exclusive", "\"node\" or \"cores\"");
            o.exclusive = *v;
        } else if (k == "array_limit") {
            auto v = node.value<int64_t>();
            if (!v || *v < 0) throw bad("array_limit", "an integer, 0 for no limit");
            o.array_limit = std::size_t(*v);
        } else if (k == "shard_size" || k == "cpus_per_task" || k == "retries" || k == "time_minutes") {
            // The command line's range, so a value it refuses is not taken (nor cut to an int) from here.
            const SlurmRange range = k == "shard_size"      ? kShardSizes
                                     : k == "cpus_per_task" ? kSlurmCpus
                                     : k == "retries"       ? kSlurmRetries
                                                            : SlurmRange{0, kSlurmMinutes.most};
            auto v = node.value<int64_t>();
            if (!v || *v < range.least || *v > range.most)
                throw bad(k.c_str(), fmt::format("an integer from {} to {}", range.least, range.most).c_str());
            if (k == "shard_size") o.shard_size = std::size_t(*v);
            if (k == "cpus_per_task") o.cpus_per_task = int(*v);
            if (k == "retries") o.retries = int(*v);
            if (k == "time_minutes") o.time_minutes = int(*v);
        } else if (k == "sbatch_args") {
            const toml::array* a = node.as_array();
            if (!a) throw bad("sbatch_args", "an array of strings");
            std::vector<std::string> args;
            for (const auto& e : *a) {
                if (!e.is_string()) throw bad("sbatch_args", "an array of strings");
                args.push_back(*e.value<std::string>());
            }
            o.sbatch_args = args;
        } else {
            throw std::runtime_error(fmt::format("{}: unknown key [slurm] {}: the keys are enabled, partition, array_limit, "
                                                 "shard_size, exclusive, cpus_per_task, retries, time_minutes, sbatch_args",
                                                 policy_file, k));
        }
    }
    return o;
}

}  // namespace perflab::grader
