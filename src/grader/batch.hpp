// A class's hand-ins graded one after another into an output directory that
// survives the grader being killed: results.jsonl, gradebook.csv, feedback/,
// baselines/ and batch.json.
#pragma once

#include <optional>
#include <string>

#include "grade.hpp"

namespace perflab::grader {

struct BatchSettings {
    GradeSettings grade;
    std::string handins_dir, out_dir;
    bool force = false;
    std::size_t recalibrate_every = 10;
    std::optional<std::string> fixed_baseline;  // instead of measuring one
};

// Returns the process exit status: 0 when every hand-in has a record.
int run_batch(const BatchSettings& settings);

}  // namespace perflab::grader
