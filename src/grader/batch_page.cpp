#include "batch_page.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "baseline_files.hpp"
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

json baselines_in_time_order(const std::string& dir) {
    json out = json::array();
    for (const auto& m : measured_baselines(dir)) {
        try {
            BaselineFile b = load_baseline(m.path);
            json rotate = json::object(), smooth = json::object();
            for (const auto& [dim, cpe] : b.rotate) rotate[std::to_string(dim)] = cpe;
            for (const auto& [dim, cpe] : b.smooth) smooth[std::to_string(dim)] = cpe;
            out.push_back({{"file", fs::path(m.path).filename().string()},
                           {"started", m.from_slurm ? json() : json(m.started_ns)},
                           {"after_handins", m.after_handins},
                           {"rotate", rotate},
                           {"smooth", smooth}});
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
            {"policy", policy.source},
            {"basis", basis_name(policy.basis)}};
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
