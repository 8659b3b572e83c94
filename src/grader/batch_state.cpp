#include "batch_state.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/toml_file.hpp"
#include "common/sha256.hpp"
#include "settings_json.hpp"

namespace perflab::grader {
using nlohmann::json;

namespace {

// The settings' values, which the fingerprint covers; a recalibrating baseline
// carries its interval as a number of its own.
json setting_values(const BatchSettings& s) {
    const GradeSettings& g = s.grade;
    const json all = grade_settings_json(g);
    json values = json::object();
    // The limits a command line sets; the others are the grader's own.
    for (const char* key : {"driver_args", "trials", "max_trials", "wall_timeout", "cpu_seconds", "memory_bytes",
                            "compile_timeout"})
        values[key] = all.at(key);
    // The policy by its contents, not its file name: an edited policy grades differently.
    values["policy"] = sha256_hex(policy_to_toml(g.policy, ""));
    values["baseline"] = "interleaved";
    if (s.fixed_baseline) {
        values["baseline"] =
            "file " + sha256_hex(read_text_file(std::filesystem::absolute(*s.fixed_baseline).string(), "baseline"));
    } else if (s.recalibrate_every) {
        values["baseline"] = "batch";
        values["recalibrate_every"] = s.recalibrate_every;
    }
    return values;
}

// The values as batch.json shows them to a reader.
json worded(json values) {
    if (values.contains("recalibrate_every")) {
        const auto every = values["recalibrate_every"].get<std::size_t>();
        values["baseline"] = "batch, measured every " + (every == 1 ? "hand-in" : counted(every, "hand-in"));
        values.erase("recalibrate_every");
    }
    return values;
}

BatchState state_of(const json& values) {
    BatchState state;
    state.settings = worded(values);
    state.fingerprint = sha256_hex(values.dump());
    return state;
}

// Settings whose fingerprint is of themselves, as graders wrote them before the
// values were worded apart: a recalibrating baseline was "batch, measured every
// N hand-ins" (also for N = 1). Read as the values they stand for, a batch
// started then resumes under the same settings now.
BatchState from_values_as_worded(const json& settings) {
    json values = settings;
    const std::string baseline =
        settings.contains("baseline") && settings["baseline"].is_string() ? settings["baseline"].get<std::string>() : "";
    static const std::regex recalibrating(R"(batch, measured every ([1-9][0-9]{0,17}) hand-ins)");
    std::smatch every;
    if (std::regex_match(baseline, every, recalibrating)) {
        values["baseline"] = "batch";
        values["recalibrate_every"] = std::stoull(every[1].str());
    }
    return state_of(values);
}

}  // namespace

BatchState grading_settings(const BatchSettings& s) { return state_of(setting_values(s)); }

namespace {
json read_batch_json(const std::string& out_dir) {
    const std::string path = out_dir + "/batch.json";
    if (!std::filesystem::exists(path)) return json::object();
    json j = json::parse(read_text_file(path, "batch"), nullptr, false);
    return j.is_object() ? j : json::object();
}
}  // namespace

BatchState read_batch_state(const std::string& out_dir) {
    json j = read_batch_json(out_dir);
    BatchState state;
    if (j.contains("settings") && j["settings"].is_object()) state.settings = j["settings"];
    if (j.contains("settings_sha256") && j["settings_sha256"].is_string()) state.fingerprint = j["settings_sha256"];
    if (sha256_hex(state.settings.dump()) == state.fingerprint) {
        const BatchState read = from_values_as_worded(state.settings);
        state.settings = read.settings;
        state.fingerprint = read.fingerprint;
    }
    if (j.contains("force_started_ns") && j["force_started_ns"].is_number_integer())
        state.force_started_ns = j["force_started_ns"].get<std::int64_t>();
    return state;
}

std::string differing_settings(const json& a, const json& b) {
    // max_trials left at its default follows trials: it changed because trials did.
    auto follows_trials = [](const json& s) {
        return s.contains("trials") && s.contains("max_trials") && s["max_trials"] == 2 * s["trials"].get<int>();
    };
    std::vector<std::string> names;
    auto add = [&](const std::string& key) {
        if (key == "max_trials" && follows_trials(a) && follows_trials(b)) return;
        if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
    };
    for (const auto& [key, value] : a.items())
        if (!b.contains(key) || b[key] != value) add(key);
    for (const auto& [key, value] : b.items())
        if (!a.contains(key)) add(key);
    std::string said;
    for (const auto& n : names) said += (said.empty() ? "" : ", ") + n;
    return said.empty() ? "unrecorded" : said;
}

void write_batch_json(const std::string& out_dir, json report, const BatchState& state) {
    report["settings"] = state.settings;
    report["settings_sha256"] = state.fingerprint;
    if (state.force_started_ns) report["force_started_ns"] = state.force_started_ns;
    else report.erase("force_started_ns");
    write_file_atomically(out_dir + "/batch.json", report.dump(2) + "\n");
}

void save_batch_state(const std::string& out_dir, const BatchState& state) {
    write_batch_json(out_dir, read_batch_json(out_dir), state);
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace perflab::grader
