// What batch.json remembers for the next run into the same DIR: the settings the
// records were graded with (a resume under other settings would mix two gradings
// in one gradebook) and a --force regrade that has not finished (so running the
// same forced command again resumes it instead of starting over).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "batch.hpp"

namespace perflab::grader {

struct BatchState {
    nlohmann::json settings = nlohmann::json::object();  // what decides a grade, worded for a reader
    std::string fingerprint;                              // sha256 of the settings' values; "" in a DIR from before it
    std::int64_t force_started_ns = 0;                     // an unfinished --force regrade; 0: none
};

// The settings that decide a grade: the policy's contents, driver args, trials,
// the baseline (a fixed one by its contents) and the sandbox limits. Throws
// std::runtime_error when the fixed baseline cannot be read.
BatchState grading_settings(const BatchSettings& s);

// The state batch.json holds (empty fields when it is missing or older; settings
// a grader wrote before they were worded apart from their values, as today's).
BatchState read_batch_state(const std::string& out_dir);
// The names of the settings that differ, comma-separated ("policy, driver_args").
std::string differing_settings(const nlohmann::json& a, const nlohmann::json& b);

// Writes DIR/batch.json: `report` (host, baselines, ...) with the state's fields.
void write_batch_json(const std::string& out_dir, nlohmann::json report, const BatchState& state);
// batch.json as it is, with `state` in place of its state.
void save_batch_state(const std::string& out_dir, const BatchState& state);

std::int64_t now_ns();

}  // namespace perflab::grader
