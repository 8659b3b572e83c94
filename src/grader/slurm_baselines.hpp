// The baselines a Slurm batch's tasks measured on their nodes, compared.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perflab::grader {

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
