// `grader calibrate`: a scoring policy whose full marks sit at the speedups the
// reference solutions reach on this host, so no instructor guesses thresholds.
#pragma once

#include <string>
#include <vector>

#include "driver/core/scoring.hpp"

namespace perflab::grader {

// The reference variants that define full marks, by their short name in
// reference/variants.def (which holds their descriptions).
inline constexpr const char* kFullMarksRotate = "unrolled";
inline constexpr const char* kFullMarksSmooth = "two-pass";

// Runs the two reference variants with `reference_driver` (extra `driver_args`)
// and returns `base` with 50-point linear curves from 1.0 to their speedups on its
// basis: timed here, or on its model machine (whose figures are the same anywhere).
// Throws std::runtime_error when a variant is missing or not faster than the baseline.
ScoringPolicy calibrate_policy(const std::vector<std::string>& reference_driver, const std::vector<std::string>& driver_args,
                               const std::string& work_dir, ScoringPolicy base);

}  // namespace perflab::grader
