// Whether the machine changed regime under a timed batch: the naive oracle is the
// same code in every run, so its CPE, trial after trial, shows the machine. A
// batch whose oracle moved from one level to another (a neighbour took the shared
// L3: 4.7 -> 4.1 cycles per pixel at 512 here) is flagged, since its speedups
// depend on when each trial ran even though round-robin spread every hand-in's
// trials over both regimes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perflab::grader {

// A shift of the oracle's median CPE this large between two runs of trials is a
// regime change; within it, the trials' own noise.
inline constexpr double kRegimeShift = 0.08;

struct RegimeChange {
    std::size_t after_trial = 0;  // the first trial of the second regime, counted from 1
    double before = 0, after = 0;  // the oracle's median CPE in each
    double change_percent() const { return (after / before - 1) * 100; }
};

// The most marked change in `cpes` (in time order): the split, at least three
// trials from either end, that two levels explain best; nullopt when they differ
// by less than kRegimeShift or the two sides overlap (more than a quarter of
// either side lies past the midpoint of the medians).
std::optional<RegimeChange> regime_change(const std::vector<double>& cpes);

class OracleWatch {
public:
    // One trial's driver report: the oracle's CPE beside each graded kernel (the
    // geometric mean over its dims), when the report has one.
    void add(const nlohmann::json& report);
    // Per kernel: trials seen, and the change when there is one ("moved").
    nlohmann::json summary() const;
    // One line per kernel whose oracle moved, for the instructor.
    std::vector<std::string> warnings() const;

private:
    std::vector<double> rotate_, smooth_;
};

}  // namespace perflab::grader
