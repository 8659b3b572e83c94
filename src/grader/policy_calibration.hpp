// `grader calibrate`: a scoring policy whose full marks sit at the speedups the
// reference solutions reach on this host, so no instructor guesses thresholds.
#pragma once

#include <string>
#include <vector>

#include "driver/core/scoring.hpp"

namespace perflab::grader {

// The reference variants that define full marks, by the start of their description.
inline constexpr const char* kFullMarksRotate = "rotate: blocked 32x32 tiles, inner loop unrolled";
inline constexpr const char* kFullMarksSmooth = "smooth: two-pass, ";

// Times the two reference variants with `reference_driver` (extra `driver_args`)
// and returns 50-point linear curves from 1.0 to their speedups. Throws
// std::runtime_error when a variant is missing or not faster than the baseline.
ScoringPolicy calibrate_policy(const std::vector<std::string>& reference_driver, const std::vector<std::string>& driver_args,
                               const std::string& work_dir);

}  // namespace perflab::grader
