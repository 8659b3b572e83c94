// The JSON report against its documented schema (docs/report.schema.json), on
// runs that exercise every optional part: failures, notices, counters that are
// unavailable, simulation, speed of light, the team skipped or present.
#include <catch2/catch.hpp>

#include "harness.hpp"
#include "json_schema.hpp"

using namespace perflab::test;
using nlohmann::json;

namespace {

const json& schema() {
    static const json s = json::parse(read_file(repo("docs/report.schema.json")));
    return s;
}

json report_of(const std::string& exe, std::vector<std::string> args, const std::string& name) {
    std::string path = scratch_dir("json-" + name) + "/r.json";
    args.insert(args.begin(), exe);
    args.insert(args.end(), {"--json", path});
    auto r = run(args);
    REQUIRE(r.status == 0);
    return json::parse(read_file(path));
}

void require_valid(const json& report) {
    auto errors = validate_json(report, schema());
    for (const auto& e : errors) UNSCOPED_INFO(e);
    CHECK(errors.empty());
}

}  // namespace

TEST_CASE("the validator itself rejects what the schema forbids", "[driver][json]") {
    json good = report_of(build_driver("tests/fixtures/kernels/fast.c"), {"--dims", "32", "--max-samples", "2"}, "good");
    require_valid(good);
    json bad = good;
    bad["kernels"]["rotate"]["variants"][0]["dims"][0]["cpe"] = 0;  // a CPE is always positive
    bad["machine"]["clock"].erase("name");
    bad["schema"] = "perflab-report-0";
    auto errors = validate_json(bad, schema());
    CHECK(errors.size() == 3);
}

TEST_CASE("a report with failures, a notice and unavailable counters matches the schema", "[driver][json]") {
    json r = report_of(build_driver("tests/fixtures/kernels/broken.c"),
                       {"--dims", "32", "--max-samples", "2", "--timeout", "1", "--counters", "--speed-of-light"},
                       "broken");
    require_valid(r);
    CHECK(r["counters_unavailable"].is_string());  // no PMU here; never zeros as if measured
    CHECK(r["kernels"]["smooth"]["notice"].is_string());
    CHECK(r["kernels"]["rotate"]["speed_of_light"].is_object());
    CHECK(r["team"]["team"] == "broken");
}

TEST_CASE("autograder and simulation reports match the schema", "[driver][json]") {
    json g = report_of(build_driver("tests/fixtures/kernels/fast.c"),
                       {"-g", "-t", "--dims", "32", "--max-samples", "2", "--simulate", "--kernel", "rotate",
                        "--cache-geometry", "D1=32768,8,64:LL=1048576,16,64"},
                       "autograder");
    require_valid(g);
    CHECK(g["team"].is_null());
    CHECK(g["config"]["autograder"] == true);
    const json& dim = g["kernels"]["rotate"]["variants"][0]["dims"][0];
    REQUIRE(dim.contains("simulated"));
    // A rotate stores every pixel once: one write per pixel, at most one miss each.
    CHECK(dim["simulated"]["D1 wr miss/px (sim)"].get<double>() > 0);
    CHECK(dim["simulated"]["D1 wr miss/px (sim)"].get<double>() <= 1.0);
    CHECK_FALSE(g.contains("findings"));
}

TEST_CASE("UTF-8 descriptions survive into the JSON report", "[driver][json]") {
    json r = report_of(build_driver("tests/fixtures/kernels/colliding.c"), {"--dims", "32", "--max-samples", "2"}, "utf8");
    bool found = false;
    for (const auto& v : r["kernels"]["smooth"]["variants"]) found |= v["name"] == "naive_smooth: 平滑 baseline";
    CHECK(found);
    CHECK(r["team"]["name1"] == "名字 Student");
}
