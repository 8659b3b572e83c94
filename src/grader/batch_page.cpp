#include "batch_page.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
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

// When a baseline file was measured, as keys that sort in time order, and how
// many hand-ins its process had graded by then: baselines/STAMP-AFTER.toml of a
// local batch (the grader process's start in ns, that count), or
// baselines/slurm-JOB_TASK-NODE.toml of a Slurm batch (its array job and task;
// a task measures before it grades, so after none, and it has no start time).
std::optional<std::tuple<long long, long long, long long, bool>> measured_when(const std::string& stem) {
    const std::string slurm = "slurm-";
    const bool from_slurm = stem.rfind(slurm, 0) == 0;
    const std::string rest = from_slurm ? stem.substr(slurm.size()) : stem;
    const auto sep = rest.find(from_slurm ? '_' : '-');
    if (sep == std::string::npos) return std::nullopt;
    try {
        long long first = std::stoll(rest.substr(0, sep)), second = std::stoll(rest.substr(sep + 1));
        return std::tuple{first, second, from_slurm ? 0 : second, from_slurm};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

json baselines_in_time_order(const std::string& dir) {
    std::vector<std::tuple<long long, long long, long long, bool, std::string>> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() != ".toml") continue;
        if (auto when = measured_when(e.path().stem().string()))
            found.emplace_back(std::get<0>(*when), std::get<1>(*when), std::get<2>(*when), std::get<3>(*when), e.path().string());
    }
    std::sort(found.begin(), found.end());
    json out = json::array();
    for (const auto& [stamp, order, after, slurm, path] : found) {
        try {
            BaselineFile b = load_baseline(path);
            json rotate = json::object(), smooth = json::object();
            for (const auto& [dim, cpe] : b.rotate) rotate[std::to_string(dim)] = cpe;
            for (const auto& [dim, cpe] : b.smooth) smooth[std::to_string(dim)] = cpe;
            out.push_back({{"file", fs::path(path).filename().string()},
                           {"started", slurm ? json() : json(stamp)},
                           {"after_handins", after},
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
