// The few statistics the reports need, in one place so the driver, the grader
// and the benchmarks agree on them.
#pragma once

#include <span>

namespace perflab {

// Geometric mean of positive values; 0 for an empty span.
double geometric_mean(std::span<const double> values);
double mean(std::span<const double> values);
// Sample standard deviation over the mean; 0 for fewer than two values.
double coefficient_of_variation(std::span<const double> values);
double median(std::span<const double> values);
// max / min - 1: how far apart the values are, as a fraction; 0 for fewer than two
// values, infinite when the smallest is not positive (no ratio to take).
double relative_spread(std::span<const double> values);

}  // namespace perflab
