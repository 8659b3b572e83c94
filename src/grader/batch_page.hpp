// The grader's pages: OUT/report.html for the batch and OUT/feedback/ID.html for
// each hand-in. Both are made only from what OUT holds on disk (results.jsonl,
// baselines/, the stored driver reports), so a batch that was killed and resumed
// gives the same page as one that ran through, and rewriting it changes nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "driver/core/scoring.hpp"
#include "record.hpp"

namespace perflab::grader {

// The batch's data as the page embeds it ("schema": "perflab-batch-1"): every
// record in the order it was graded (the latest per ID), every baseline
// measured in time order, and the policy's maximum points.
nlohmann::json batch_page_data(const std::string& out_dir, const ScoringPolicy& policy);

std::string batch_page(const nlohmann::json& data);

// Writes OUT/report.html atomically.
void write_batch_page(const std::string& out_dir, const ScoringPolicy& policy);

// The student's page: the driver run's page (the last trial's report) headed by
// the grade; without a report (it did not build or run), the grade and the log.
std::string feedback_page(const Record& record, const std::optional<nlohmann::json>& report, const std::string& feedback);

}  // namespace perflab::grader
