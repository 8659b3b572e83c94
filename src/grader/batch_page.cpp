#include "batch_page.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "common/atomic_file.hpp"
#include "driver/core/baseline.hpp"
#include "driver/report/html.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// results.jsonl in file order, which is the order hand-ins were graded; a
// hand-in regraded with --force keeps only its latest record, at its new place.
json records_in_grading_order(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<json> lines;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("id")) continue;  // a torn last line
        lines.push_back(std::move(j));
    }
    json out = json::array();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        bool later = false;
        for (std::size_t k = i + 1; k < lines.size() && !later; ++k) later = lines[k]["id"] == lines[i]["id"];
        if (!later) out.push_back(lines[i]);
    }
    return out;
}

// baselines/STAMP-AFTER.toml: the start time of the grader process (ns) and how many
// hand-ins it had graded, which orders them in time across resumes.
json baselines_in_time_order(const std::string& dir) {
    std::vector<std::tuple<long long, long long, std::string>> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() != ".toml") continue;
        const std::string stem = e.path().stem().string();
        const auto dash = stem.find('-');
        if (dash == std::string::npos) continue;
        try {
            found.emplace_back(std::stoll(stem.substr(0, dash)), std::stoll(stem.substr(dash + 1)), e.path().string());
        } catch (const std::exception&) {
        }
    }
    std::sort(found.begin(), found.end());
    json out = json::array();
    for (const auto& [stamp, after, path] : found) {
        try {
            BaselineFile b = load_baseline(path);
            json rotate = json::object(), smooth = json::object();
            for (const auto& [dim, cpe] : b.rotate) rotate[std::to_string(dim)] = cpe;
            for (const auto& [dim, cpe] : b.smooth) smooth[std::to_string(dim)] = cpe;
            out.push_back({{"file", fs::path(path).filename().string()}, {"started", stamp}, {"after_handins", after},
                           {"rotate", rotate}, {"smooth", smooth}});
        } catch (const std::exception&) {
            // A baseline being written when the grader was killed: not a measurement.
        }
    }
    return out;
}

}  // namespace

json batch_page_data(const std::string& out_dir, const ScoringPolicy& policy) {
    return {{"schema", "perflab-batch-1"},
            {"records", records_in_grading_order(out_dir + "/results.jsonl")},
            {"baselines", baselines_in_time_order(out_dir + "/baselines")},
            {"max_points", {{"rotate", policy.rotate.max_points}, {"smooth", policy.smooth.max_points}}},
            {"policy", policy.source}};
}

std::string batch_page(const json& data) {
    return html_page("perflab batch report", {{"perflab-batch", dump(data)}}, kBatchPageJs);
}

void write_batch_page(const std::string& out_dir, const ScoringPolicy& policy) {
    write_file_atomically(out_dir + "/report.html", batch_page(batch_page_data(out_dir, policy)));
}

std::string feedback_page(const Record& r, const std::optional<json>& report, const std::string& feedback) {
    json grader = to_json(r);
    grader["feedback"] = feedback;
    RunPageInputs in;
    if (report) in.report_json = dump(*report);
    in.grader = grader;
    return run_page(in);
}

}  // namespace perflab::grader
