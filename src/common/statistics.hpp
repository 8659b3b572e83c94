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

// Spearman's rank correlation of two equally long series (ties share their average
// rank): 1 when they order alike; 0 when either has no spread.
double spearman(std::span<const double> a, std::span<const double> b);

struct Interval {
    double low = 0, high = 0;
};
// A ~95% interval of the median of a few repeated measurements, taking their spread
// as normal: median +/- 1.96 x 1.2533 s / sqrt(n) (1.2533 s / sqrt(n) is the median's
// standard error). For fewer than two values, the one value (or 0): no spread is known.
Interval median_interval(std::span<const double> values);

}  // namespace perflab
