// The grading settings as JSON, under the one set of keys every file that holds
// them uses: batch.json's fingerprinted settings and a Slurm submission's plan.
#pragma once

#include <nlohmann/json.hpp>

#include "grade.hpp"

namespace perflab::grader {

// Every value of `g` but its layout and policy, which each file names its own way.
nlohmann::json grade_settings_json(const GradeSettings& g);
// The values grade_settings_json wrote, into `g`. Throws std::runtime_error
// naming a key that is missing or of the wrong type.
void read_grade_settings(const nlohmann::json& j, GradeSettings& g);

}  // namespace perflab::grader
