#include "html.hpp"

#include <fmt/format.h>

#include "common/atomic_file.hpp"

namespace perflab {
namespace {

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// Inside a <script> block "</script" ends it early, and "<!--" followed by
// "<script" makes the parser look past the block's own end tag, taking the rest
// of the page in (a student's description can hold either). "\u003c" is the same
// JSON string, and '<' occurs nowhere else in JSON.
std::string script_safe(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '<')
            out += "\\u003c";
        else
            out += c;
    }
    return out;
}

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

std::string html_page(const std::string& title, const std::vector<PageBlock>& blocks, const char* view_js) {
    std::string page;
    page.reserve(300000);
    // The policy forbids every fetch: a page that tried one would show it as a
    // blocked request (the tests check none happens), not silently depend on a network.
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    page += "<title>" + html_escape(title) + "</title>\n<style>\n";
    page += kPageCss;
    // Errors are caught from the first script on, so a failure inside Chart.js
    // is as visible in the DOM as one in the view.
    page += "</style>\n<script>\n"
            "window.perflabErrors = [];\n"
            "window.addEventListener('error', function (e) { window.perflabErrors.push(String(e.message)); });\n"
            "window.addEventListener('unhandledrejection', function (e) { window.perflabErrors.push(String(e.reason)); });\n"
            "window.perflabBlocked = [];\n"
            "document.addEventListener('securitypolicyviolation', function (e) { window.perflabBlocked.push(e.blockedURI); });\n"
            "(function () { var orig = console.error; console.error = function () {\n"
            "  window.perflabErrors.push(Array.prototype.join.call(arguments, ' ')); return orig.apply(console, arguments); }; })();\n"
            "</script>\n</head>\n<body>\n<main id=\"page\"><noscript>This page draws its charts with JavaScript.</noscript></main>\n";
    for (const auto& b : blocks)
        page += "<script type=\"application/json\" id=\"" + b.id + "\">" + script_safe(b.json) + "</script>\n";
    page += "<script>\n";
    page += kChartJs;
    page += "\n</script>\n<script>\n";
    page += kPageCommonJs;
    page += "\n";
    page += view_js;
    page += "\n</script>\n</body>\n</html>\n";
    return page;
}

std::string run_page(const RunPageInputs& in) {
    std::vector<PageBlock> blocks;
    std::string title = "perflab report";
    if (!in.report_json.empty()) blocks.push_back({"perflab-report", in.report_json});
    if (in.explain_json) blocks.push_back({"perflab-explain", *in.explain_json});
    if (in.comparison) blocks.push_back({"perflab-compare", dump(*in.comparison)});
    if (in.grader) {
        blocks.push_back({"perflab-grader", dump(*in.grader)});
        title = "perflab feedback: " + in.grader->value("id", std::string());
    }
    return html_page(title, blocks, kRunPageJs);
}

void HtmlReporter::finish(const RunResult& run) {
    RunPageInputs in;
    in.report_json = json_report(run);
    if (old_report_)
        in.comparison = comparison_json(compare_reports(*old_report_, nlohmann::json::parse(in.report_json), old_source_));
    write_file_atomically(path_, run_page(in));
}

}  // namespace perflab
