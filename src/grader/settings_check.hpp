// The grading settings tried once before a batch: a typo in --driver-args or a
// baseline that lacks a dimension would otherwise fail every hand-in in turn as
// an internal-error, one driver run each.
#pragma once

#include <optional>
#include <string>

#include "grade.hpp"

namespace perflab::grader {

// Runs the trusted driver (the grader's own naive kernels, linked under
// `work_dir`) with exactly the options a hand-in's run gets, stopped before it
// times anything. Throws std::runtime_error (one line: the driver's complaint and
// the option to fix) when the driver refuses them. `fixed_baseline` is the
// instructor's own file, so a complaint about it names that file.
void check_settings(const GradeSettings& grade, const std::optional<std::string>& fixed_baseline,
                    const std::string& work_dir);

}  // namespace perflab::grader
