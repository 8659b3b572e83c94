// One graded hand-in: the line results.jsonl holds and every output is made from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "driver/core/scoring.hpp"
#include "outcome.hpp"

namespace perflab::grader {

struct Record {
    std::string id;
    Status status = Status::ok;
    std::string reason;
    std::optional<double> rotate_speedup, smooth_speedup;  // absent when not measured or not correct
    double rotate_points = 0, smooth_points = 0, total = 0;
    int trials = 0;
    Basis basis = Basis::timing;  // what gave the points (records from before it say nothing: timing)
    std::string baseline;  // the baseline file the speedups are against ("" = measured by each run)
    std::string node;      // the host that timed it (a Slurm batch spreads over many; "" in old records)
    // What was graded and when, so a resume can tell a changed hand-in or a record
    // older than a --force regrade ("" and 0 in records written before them).
    std::string handin_sha256;
    std::int64_t graded_at_ns = 0;  // since the epoch, when the record was committed
};

nlohmann::json to_json(const Record& r);
// Throws std::runtime_error when a field is missing or has the wrong type.
Record record_from_json(const nlohmann::json& j);

}  // namespace perflab::grader
