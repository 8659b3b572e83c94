#include "batch_state.hpp"

#include <chrono>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/toml_file.hpp"
#include "driver/explain/build_state.hpp"

namespace perflab::grader {
using nlohmann::json;

BatchState grading_settings(const BatchSettings& s) {
    const GradeSettings& g = s.grade;
    std::string baseline = "interleaved";
    if (s.fixed_baseline)
        baseline = "file " + sha256_hex(read_text_file(std::filesystem::absolute(*s.fixed_baseline).string(), "baseline"));
    else if (s.recalibrate_every)
        baseline = "batch, measured every " + std::to_string(s.recalibrate_every) + " hand-ins";
    BatchState state;
    // The policy by its contents, not its file name: an edited policy grades differently.
    state.settings = {{"policy", sha256_hex(policy_to_toml(g.policy, ""))},
                      {"driver_args", g.driver_args},
                      {"trials", g.trials},
                      {"max_trials", g.most_trials()},
                      {"baseline", baseline},
                      {"wall_timeout", g.sandbox.wall_seconds},
                      {"cpu_seconds", g.sandbox.cpu_seconds},
                      {"memory_bytes", g.sandbox.memory_bytes},
                      {"compile_timeout", g.build.compile_seconds}};
    state.fingerprint = sha256_hex(state.settings.dump());
    return state;
}

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
    if (j.contains("force_started_ns") && j["force_started_ns"].is_number_integer())
        state.force_started_ns = j["force_started_ns"].get<std::int64_t>();
    return state;
}

std::string differing_settings(const json& a, const json& b) {
    std::string names;
    auto add = [&](const std::string& key) {
        if (names.find(key) == std::string::npos) names += (names.empty() ? "" : ", ") + key;
    };
    for (const auto& [key, value] : a.items())
        if (!b.contains(key) || b[key] != value) add(key);
    for (const auto& [key, value] : b.items())
        if (!a.contains(key)) add(key);
    return names.empty() ? "unrecorded" : names;
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
