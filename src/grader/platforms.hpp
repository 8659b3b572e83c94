// The two course platforms' contracts for one graded hand-in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "record.hpp"
#include "driver/core/scoring.hpp"

namespace perflab::grader {

// Autolab reads the last line of the autograder's output:
// {"scores": {"rotate": R, "smooth": S}, "scoreboard": [total, rotate speedup, smooth speedup]}
std::string autolab_line(const Record& r);

// Gradescope's results.json: score, one test per kernel, the feedback as output,
// and a leaderboard.
nlohmann::json gradescope_results(const Record& r, const ScoringPolicy& policy, const std::string& feedback);

}  // namespace perflab::grader
