// The one rounding rule for what any output shows: points and speedups in tenths.
// Points are rounded once, when a hand-in is graded, and a total is the sum of its
// parts as rounded, so Gradescope, Autolab, the gradebook and the feedback all show
// parts that add up to the total they show.
#pragma once

namespace perflab::grader {

// Rounded to tenths, halves away from zero (12.25 -> 12.3); more digits only suggest
// a precision timing lacks.
double tenths(double v);

// The sum of two values as tenths() shows them, itself exact in tenths (no 22.400000000000002).
double sum_of_tenths(double a, double b);

}  // namespace perflab::grader
