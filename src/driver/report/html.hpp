// The HTML report: one self-contained page per run (./driver --html FILE), per
// hand-in and per batch (the grader). Every page embeds its data as JSON blocks
// and draws from them with Chart.js and a small view script, all inlined: the
// page fetches nothing and reads the same offline from a file:// URL.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare.hpp"
#include "report.hpp"

namespace perflab {

// The inlined assets, generated at build time from the Debian package's
// chart.min.js and the view sources beside this file (mk/embed-assets.sh).
extern const char* const kChartJs;
extern const char* const kPageCss;
extern const char* const kPageCommonJs;
extern const char* const kRunPageJs;
extern const char* const kBatchPageJs;

// One <script type="application/json" id=ID> block.
struct PageBlock {
    std::string id;
    std::string json;  // serialized JSON; every "<" is escaped so nothing in it can end the block
};

// A whole page: the blocks, Chart.js, the shared helpers and `view_js`.
std::string html_page(const std::string& title, const std::vector<PageBlock>& blocks, const char* view_js);

// The page of one driver run: `report_json` exactly as --json writes it, and
// optionally the --explain findings (perflab-explain-1), a comparison with an
// earlier report, and the grader's verdict on a hand-in.
struct RunPageInputs {
    std::string report_json;  // empty: no report (a hand-in that never ran)
    std::optional<std::string> explain_json;
    std::optional<nlohmann::json> comparison;
    std::optional<nlohmann::json> grader;  // {id, status, reason, points, feedback}
};
std::string run_page(const RunPageInputs& inputs);

// ./driver --html FILE, with --compare when `old_report` is given.
class HtmlReporter : public Reporter {
public:
    HtmlReporter(std::string path, std::optional<nlohmann::json> old_report, std::string old_source)
        : path_(std::move(path)), old_report_(std::move(old_report)), old_source_(std::move(old_source)) {}
    void finish(const RunResult& run) override;

private:
    std::string path_;
    std::optional<nlohmann::json> old_report_;
    std::string old_source_;
};

}  // namespace perflab
