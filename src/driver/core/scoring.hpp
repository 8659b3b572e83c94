// Speedup to points: a piecewise-linear curve per kernel from the instructor's
// TOML policy, clamped at both ends. The driver's summary and the grader use the
// same code, so a student sees the points the grader will give.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/model/machine_model.hpp"
#include "kernel.hpp"

namespace perflab {

struct KernelPolicy {
    double max_points = 50;
    std::vector<std::pair<double, double>> curve;  // (speedup, points), speedups ascending
    // The dimensions the kernel is timed at under this policy (ascending); empty:
    // the driver's default. An explicit --dims or --classic-dims still wins.
    std::vector<int> dims;
    // Points are given in whole steps of this many (the curve's value rounded down;
    // full marks stay full), so a grade changes only where a speedup crosses a step's
    // edge. 0: the curve's value as it is. A step no finer than the run-to-run noise
    // lets identical code earn identical points away from those edges.
    double step = 0;
    double points(double speedup) const;
    // The speedup at which the curve first reaches max_points.
    double full_marks_speedup() const;
    // (speedup, points) corners of what points() gives, for a chart: the curve
    // itself, or with a step its staircase (two corners at every step's edge).
    std::vector<std::pair<double, double>> drawn_curve() const;
};


// What the points are given for: the timed speedup (the default) or the speedup on
// the policy's model machine (docs/model.md). Also the policy's `basis` values.
enum class Basis { timing, model };
constexpr const char* basis_name(Basis b) { return b == Basis::model ? "model" : "timing"; }

struct ScoringPolicy {
    KernelPolicy rotate, smooth;
    Basis basis = Basis::timing;
    MachineModel model = default_machine_model();
    std::string source = "built-in default";
    // What is allowed but probably not meant (a curve that never reaches max_points),
    // one line each: for whoever wrote the policy, not for every run that reads it.
    std::vector<std::string> warnings;
    const KernelPolicy& of(Kernel k) const { return k == Kernel::rotate ? rotate : smooth; }
    double max_total() const { return rotate.max_points + smooth.max_points; }
};

// The built-in policy, the one home of its figures: kDefaultMaxPoints per kernel,
// 0 at speedup kDefaultZeroAt rising linearly to them at kDefaultFullAt.
inline constexpr double kDefaultMaxPoints = 50, kDefaultZeroAt = 1.0, kDefaultFullAt = 3.5;
ScoringPolicy default_policy();
// The built-in policy in words, for --help: "50 points per kernel, 0 at speedup 1 to 50 at 3.5".
std::string default_policy_summary();
KernelPolicy linear_policy(double max_points, double zero_at, double full_at);

// Throws std::runtime_error with a one-line message naming the file and the problem.
ScoringPolicy load_policy(const std::string& path);
ScoringPolicy parse_policy(const std::string& toml_text, const std::string& source_name);
std::string policy_to_toml(const ScoringPolicy& policy, const std::string& comment);

struct RunResult;

// Fills each variant's points from its speedup on the policy's basis (and its model
// points whenever the model ran), each kernel's from rotate()/smooth() (0 when that
// failed its check or, under the model basis, has no model speedup), and the total.
void score_run(RunResult& run, const ScoringPolicy& policy);

}  // namespace perflab
