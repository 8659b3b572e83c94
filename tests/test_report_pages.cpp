// The reports beyond the text: --compare's verdicts (on given samples, and on
// real runs of a deliberately slowed variant), and the HTML pages opened in a
// real headless Chromium: they draw one series per variant, log no error, fetch
// nothing and embed exactly the JSON report of the same run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "driver/report/compare.hpp"
#include "driver/report/report.hpp"
#include "grader/batch_page.hpp"
#include "grader/record.hpp"
#include "grader_outputs.hpp"
#include "harness.hpp"
#include "json_schema.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using nlohmann::json;
using test::embedded;
using test::repo;

namespace {

const json& report_schema() {
    static const json s = json::parse(test::read_file(repo("docs/report.schema.json")));
    return s;
}

// What headless Chromium saw: the DOM after load, and a screenshot.
struct Browsed {
    std::string dom;
    std::string png_path;
};

// Debian's chromium, with no network, no profile and nothing in the background;
// the virtual time budget lets the page finish drawing before the DOM is dumped.
Browsed browse(const std::string& html_path, bool screenshot) {
    static int n = 0;
    const std::string profile = test::scratch_dir(fmt::format("chromium-profile-{}", n++));
    std::vector<std::string> base{"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                  "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=10000",
                                  "--window-size=1200,1400"};
    Browsed b;
    auto dom = base;
    dom.insert(dom.end(), {"--dump-dom", "file://" + fs::absolute(html_path).string()});
    auto r = test::run(dom);
    INFO(r.err);
    REQUIRE(r.status == 0);
    b.dom = r.out;
    if (screenshot) {
        b.png_path = html_path + ".png";
        auto shot = base;
        shot.insert(shot.end(), {"--screenshot=" + b.png_path, "file://" + fs::absolute(html_path).string()});
        auto s = test::run(shot);
        INFO(s.err);
        REQUIRE(s.status == 0);
    }
    return b;
}

// An attribute the page wrote on <body> once it had drawn.
std::string body_attribute(const std::string& dom, const std::string& name) {
    std::smatch m;
    const std::regex re("<body[^>]*\\s" + name + "=\"([^\"]*)\"");
    return std::regex_search(dom, m, re) ? m[1].str() : std::string();
}

int body_number(const std::string& dom, const std::string& name) {
    std::string v = body_attribute(dom, name);
    return v.empty() ? -1 : std::stoi(v);
}

// What every page must show: drawn, no error in the console, nothing fetched,
// ink on its canvases and a screenshot that is not a blank page.
void require_healthy_page(const std::string& html_path, const Browsed& b) {
    INFO(body_attribute(b.dom, "data-error-text"));
    REQUIRE(body_attribute(b.dom, "data-rendered") == "true");
    CHECK(body_number(b.dom, "data-errors") == 0);
    CHECK(body_number(b.dom, "data-resources") == 0);
    CHECK(body_number(b.dom, "data-ink") > 500);
    const std::string html = test::read_file(html_path);
    CHECK_FALSE(std::regex_search(html, std::regex("(src|href)=[\"']?(https?:)?//")));
    if (!b.png_path.empty()) {
        // A blank 1200x1400 page compresses to a few KB; charts and text do not.
        REQUIRE(fs::exists(b.png_path));
        CHECK(fs::file_size(b.png_path) > 40000);
    }
}

// The drawn <section id=ID>, without the page's scripts (which hold every sentence the view can write).
std::string section(const std::string& dom, const std::string& id) {
    const auto at = dom.find("<section id=\"" + id + "\"");
    REQUIRE(at != std::string::npos);
    return dom.substr(at, dom.find("</section>", at) - at);
}

std::ptrdiff_t count_matches(const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

int timed_variants(const json& kernel) {
    int n = 0;
    for (const auto& v : kernel["variants"]) n += v["correct"].get<bool>() && !v["dims"].empty();
    return n;
}

}  // namespace

namespace {
// Writes down every event it is given, to check the order the interface promises.
struct Recorder : Reporter {
    std::vector<std::string>& log;
    std::string name;
    Recorder(std::vector<std::string>& l, std::string n) : log(l), name(std::move(n)) {}
    void start(const RunResult&) override { log.push_back(name + " start"); }
    void kernel_started(const KernelResult& k) override { log.push_back(name + " kernel " + std::string(kernel_name(k.kernel))); }
    void variant_done(const KernelResult&, const VariantResult& v) override { log.push_back(name + " variant " + v.name); }
    void finish(const RunResult& r) override { log.push_back(name + " finish " + std::to_string(r.kernels.size())); }
};
}  // namespace

TEST_CASE("every report gets the context, each result as it finishes, and the whole run, in order", "[report]") {
    std::vector<std::string> log;
    Reporters all;
    all.add(std::make_unique<Recorder>(log, "a"));
    all.add(std::make_unique<Recorder>(log, "b"));
    RunResult run;
    all.start(run);
    RunnerObserver o = observer_for(all);
    KernelResult k;
    k.kernel = Kernel::smooth;
    VariantResult v;
    v.name = "v1";
    o.kernel_started(k);
    o.variant_done(k, v);
    CHECK_FALSE(o.measured);  // left to the measuring stages
    run.kernels.push_back(k);
    all.finish(run);
    CHECK(log == std::vector<std::string>{"a start", "b start", "a kernel smooth", "b kernel smooth", "a variant v1",
                                          "b variant v1", "a finish 1", "b finish 1"});
}

TEST_CASE("--html to a directory that cannot take it fails before anything is measured", "[report]") {
    auto r = test::run({test::build_driver("tests/fixtures/kernels/fast.c"), "--html", "/nonexistent/dir/r.html"});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot write the HTML report") && Catch::Contains("No such file or directory"));
}

// Permission bits say yes to root in /proc, where no file can be made: the check
// must make one.
TEST_CASE("--html into /proc fails before anything is measured, even as root", "[report]") {
    auto r = test::run({test::build_driver("tests/fixtures/kernels/fast.c"), "--html", "/proc/perflab-report.html"});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot write the HTML report to '/proc/perflab-report.html'"));
}

TEST_CASE("the verdict comes from the samples: noise, a real change, too few samples", "[report][compare]") {
    // Two runs of the same noisy figure: samples spread 1.0-1.6, interleaved.
    std::vector<double> old_s, same, slower, noisy_slower;
    for (int i = 0; i < 60; ++i) {
        const double noise = 1.0 + 0.6 * ((i * 37) % 60) / 60.0;
        old_s.push_back(2.0 * noise);
        same.push_back(2.0 * (1.0 + 0.6 * ((i * 37 + 11) % 60) / 60.0));
        slower.push_back(2.0 * noise * 1.25);
    }
    const SampleVerdict a = compare_samples(old_s, same);
    CHECK(a.verdict == Verdict::within_noise);
    CHECK(a.band < 0.25);  // what 60 samples a side resolve at this spread
    const SampleVerdict s = compare_samples(old_s, slower);
    CHECK(s.verdict == Verdict::slower);
    CHECK(s.change == Approx(0.25).epsilon(0.02));
    CHECK(s.p_value < 0.05);
    CHECK(compare_samples(slower, old_s).verdict == Verdict::faster);
    // The same change seen through five samples a side at this noise cannot be resolved,
    // and the verdict says how many samples would resolve 5%.
    const SampleVerdict few = compare_samples({old_s.begin(), old_s.begin() + 5}, {slower.begin(), slower.begin() + 5});
    CHECK(few.band > 0.25);
    CHECK(few.samples_needed > 60);
    // Under five samples a side: no verdict, but still how many would do.
    const SampleVerdict one = compare_samples({2.0}, {4.0});
    CHECK(one.verdict == Verdict::within_noise);
    CHECK(one.samples_needed >= 5);
    // A significant change under 3% is not called: two runs of the same code differ so much.
    std::vector<double> nudged;
    for (double x : old_s) nudged.push_back(x * 1.02);
    CHECK(compare_samples(old_s, nudged).verdict == Verdict::within_noise);
    // Relative to the oracle of the same round: a machine 40% slower in the second run
    // slows both, and the ratios do not move.
    const std::vector<double> oracle(old_s.size(), 4.0);
    std::vector<double> slow_machine, slow_oracle;
    for (double x : old_s) slow_machine.push_back(x * 1.4);
    for (double x : oracle) slow_oracle.push_back(x * 1.4);
    CHECK(compare_samples(old_s, slow_machine).verdict == Verdict::slower);
    CHECK(compare_samples(relative_to_oracle(old_s, oracle), relative_to_oracle(slow_machine, slow_oracle)).verdict ==
          Verdict::within_noise);
    CHECK(relative_to_oracle({1, 2}, {}).empty());  // a fixed baseline: judged on the raw samples
}

TEST_CASE("--compare refuses another machine or another explicit seed, in one line", "[report][compare]") {
    json a = json::parse(R"({"schema": "perflab-report-1",
        "machine": {"cpu_model": "X", "logical_cpus": 2, "caches": [{"level": 1, "type": "Data", "size_bytes": 49152, "plausible": true}]},
        "config": {"seed": null, "k": 3}, "kernels": {}})");
    json b = a;
    CHECK_NOTHROW(check_comparable(a, b));  // two secret keys: comparable
    b["config"]["seed"] = 7;
    CHECK_NOTHROW(check_comparable(a, b));  // one explicit seed against a secret key
    a["config"]["seed"] = 8;
    CHECK_THROWS_WITH(check_comparable(a, b), Catch::Contains("seed 8") && Catch::Contains("rerun with -s 8"));
    b = a;
    b["machine"]["cpu_model"] = "Y";
    CHECK_THROWS_WITH(check_comparable(a, b), Catch::Contains("another machine"));
    b = a;
    b["machine"]["caches"][0]["size_bytes"] = 32768;
    CHECK_THROWS_AS(check_comparable(a, b), CompareError);

    std::string dir = test::scratch_dir("compare-refuse");
    test::write_file(dir + "/explain.json", R"({"schema": "perflab-explain-1"})");
    CHECK_THROWS_WITH(load_old_report(dir + "/explain.json"), Catch::Contains("not a perflab-report-1"));
    CHECK_THROWS_WITH(load_old_report(dir + "/missing.json"), Catch::Contains("cannot read"));
}

TEST_CASE("--compare says which dimensions it could not compare, and why", "[report][compare]") {
    json old_r = json::parse(R"({"schema": "perflab-report-1", "machine": {"cpu_model": "X", "logical_cpus": 2, "caches": []},
        "config": {"seed": null, "k": 3}, "kernels": {"rotate": {"variants": [{"name": "v: one",
        "dims": [{"dim": 64, "cpe": 1.0, "sample_cpes": [1.0, 1.1, 1.2]}]}]}}})");
    json new_r = old_r;
    new_r["kernels"]["rotate"]["variants"][0]["dims"][0]["dim"] = 128;
    const Comparison c = compare_reports(old_r, new_r, "old.json");
    CHECK(c.rows.empty());
    CHECK(c.unmatched == std::vector<std::string>{"rotate: v: one at 128 (the old report has 64)",
                                                  "rotate: v: one at 64: not measured this time (this run has 128)"});
    CHECK_THAT(comparison_text(c), Catch::Contains("not compared: rotate: v: one at 128 (the old report has 64)"));

    // A variant that failed its check this time has no dims to compare: that is why, not missing dims.
    json failed = old_r;
    failed["kernels"]["rotate"]["variants"][0]["correct"] = false;
    failed["kernels"]["rotate"]["variants"][0]["error"] = "dimension 64: 3 wrong pixels";
    failed["kernels"]["rotate"]["variants"][0]["dims"] = json::array();
    CHECK(compare_reports(old_r, failed, "old.json").unmatched ==
          std::vector<std::string>{"rotate: v: one: failed its check this time (dimension 64: 3 wrong pixels)"});
    CHECK(compare_reports(failed, old_r, "old.json").unmatched ==
          std::vector<std::string>{"rotate: v: one: failed its check in the old report (dimension 64: 3 wrong pixels)"});
    // Failed in both: said once, with this run's reason.
    json failed_again = failed;
    failed_again["kernels"]["rotate"]["variants"][0]["error"] = "dimension 64: 5 wrong pixels";
    CHECK(compare_reports(failed, failed_again, "old.json").unmatched ==
          std::vector<std::string>{"rotate: v: one: failed its check in both runs (dimension 64: 5 wrong pixels)"});
}

TEST_CASE("--compare says which kernels and dimensions only the old report has, and what its verdicts were judged on", "[report][compare]") {
    const std::string dir = test::scratch_dir("compare-old-only");
    const std::string driver = test::build_driver("tests/fixtures/kernels/fast.c");
    auto calibrated = test::run({driver, "--calibrate", "--dims", "64,128", "--max-samples", "3"});
    INFO(calibrated.err);
    REQUIRE(calibrated.status == 0);
    test::write_file(dir + "/baseline.toml", calibrated.out);
    // Against a fixed baseline no oracle is timed: no verdict is in oracle units.
    const std::vector<std::string> fixed{"--baseline", dir + "/baseline.toml", "--max-samples", "3"};
    auto old_run = test::run({driver, "--dims", "64,128", "--json", dir + "/old.json", fixed[0], fixed[1], fixed[2], fixed[3]});
    INFO(old_run.err);
    REQUIRE(old_run.status == 0);
    auto r = test::run({driver, "--kernel", "rotate", "--dims", "64", "--compare", dir + "/old.json", "--html", dir + "/c.html",
                        fixed[0], fixed[1], fixed[2], fixed[3]});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json old_report = json::parse(test::read_file(dir + "/old.json"));
    CHECK_THAT(r.out, Catch::Contains("not compared: smooth: not measured this time"));
    for (const auto& v : old_report["kernels"]["rotate"]["variants"])
        CHECK_THAT(r.out, Catch::Contains("not compared: rotate: " + v["name"].get<std::string>() +
                                          " at 128: not measured this time"));
    const auto header = test::lines_starting_with(r.out, "Compared with");
    REQUIRE(header.size() == 1);
    CHECK_THAT(header[0], !Catch::Contains("each in units of its run's fastest oracle sample"));
    const auto rows = test::lines_starting_with(r.out, "rotate ");
    REQUIRE_FALSE(rows.empty());
    for (const auto& row : rows) CHECK(std::regex_search(row, std::regex(R"(\s-\s+(faster|slower|within noise))")));
    // The page says the same.
    const json compare = embedded(test::read_file(dir + "/c.html"), "perflab-compare");
    for (const auto& row : compare["rows"]) CHECK_FALSE(row["against_oracle"].get<bool>());
    Browsed b = browse(dir + "/c.html", false);
    require_healthy_page(dir + "/c.html", b);
    CHECK_THAT(b.dom, Catch::Contains("no oracle was timed beside them"));
    const std::string drawn = section(b.dom, "compare");
    INFO(drawn);
    CHECK_THAT(drawn, !Catch::Contains("In oracle units") && !Catch::Contains("for the oracle"));
    CHECK_THAT(b.dom, Catch::Contains("Not compared: smooth: not measured this time"));
}

TEST_CASE("the driver's page draws every variant, its failures and the machine, from the --json report", "[report][pages]") {
    const std::string dir = test::scratch_dir("page-driver");
    auto r = test::run({test::build_driver("tests/fixtures/kernels/broken.c"), "--dims", "32,64", "--max-samples", "3",
                        "--timeout", "1", "--speed-of-light", "--json", dir + "/r.json", "--html", dir + "/r.html"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json report = json::parse(test::read_file(dir + "/r.json"));
    const std::string html = test::read_file(dir + "/r.html");
    // One source of data: the page carries exactly the --json report, schema-valid.
    CHECK(embedded(html, "perflab-report") == report);
    CHECK(test::validate_json(embedded(html, "perflab-report"), report_schema()).empty());
    for (const auto& d : report["kernels"]["rotate"]["variants"][0]["dims"])
        CHECK(d["sample_cpes"].size() == d["samples"].get<std::size_t>());

    Browsed b = browse(dir + "/r.html", true);
    require_healthy_page(dir + "/r.html", b);
    CHECK(body_number(b.dom, "data-variant-series") == timed_variants(report["kernels"]["rotate"]));
    // The CPE chart holds the variants, the oracle and the memcpy.
    CHECK_THAT(b.dom, Catch::Contains(fmt::format("data-series=\"{}\"", timed_variants(report["kernels"]["rotate"]) + 2)));
    int failed = 0;
    for (const auto& [name, kernel] : report["kernels"].items())
        for (const auto& v : kernel["variants"]) failed += !v["correct"].get<bool>();
    REQUIRE(failed > 0);
    CHECK(count_matches(b.dom, "data-failed=") == failed);
    CHECK_THAT(b.dom, Catch::Contains("First bad pixel"));
    CHECK_THAT(b.dom, Catch::Contains(report["machine"]["cpu_model"].get<std::string>()));
    // Each cache says, as the text report does, whether it is a CPU's own or shared.
    for (const auto& c : report["machine"]["caches"]) {
        if (c["shared_cpus"].is_null()) continue;
        const int n = c["shared_cpus"].get<int>();
        CHECK_THAT(b.dom, Catch::Contains(n == 1 ? std::string("private to one logical CPU")
                                                 : fmt::format("shared by {} logical CPUs", n)));
    }
}

TEST_CASE("--compare calls a slowed variant slower and the same samples within noise", "[report][compare][pages]") {
    const std::string dir = test::scratch_dir("page-compare");
    const std::string same = test::build_driver("tests/fixtures/kernels/slowable.c");
    const std::string slow = test::build_driver("tests/fixtures/kernels/slowable.c", "-DSLOW=6");
    const std::vector<std::string> args{"--kernel", "rotate", "--dims", "64,128", "--max-samples", "12"};
    auto timed = [&](const std::string& driver, std::vector<std::string> extra) {
        std::vector<std::string> argv{driver};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), extra.begin(), extra.end());
        auto r = test::run(argv);
        INFO(r.err);
        REQUIRE(r.status == 0);
        return r;
    };
    timed(same, {"--json", dir + "/old.json", "--html", dir + "/old.html"});

    // Two real runs of the same code may differ on a busy machine: "within noise" is
    // checked on the same samples judged twice, never on two timed runs.
    const json old_report = json::parse(test::read_file(dir + "/old.json"));
    const Comparison itself = compare_reports(old_report, old_report, dir + "/old.json");
    CHECK(itself.rows.size() == 4);  // 2 variants x 2 dims
    for (const auto& row : itself.rows) CHECK(row.verdict.verdict == Verdict::within_noise);

    // The old run's page serves as well as its JSON: it embeds the report.
    auto slowed = timed(slow, {"--compare", dir + "/old.html", "--html", dir + "/c.html"});
    CHECK_THAT(slowed.out, Catch::Contains("Compared with " + dir + "/old.html"));
    CHECK_THAT(slowed.out, Catch::Contains("(resolves ±"));
    // Only the slowed variant's verdict is asserted: the unchanged one's, two timed runs
    // apart, may fall either way on a busy machine (a CI run saw it 8.6% "faster").
    for (const auto& row : test::lines_starting_with(slowed.out, "rotate ")) {
        INFO(row);
        if (row.find("rotate: maybe slowed") != std::string::npos) CHECK_THAT(row, Catch::Contains("slower"));
    }
    // The page says the same, row by row.
    Browsed b = browse(dir + "/c.html", false);
    require_healthy_page(dir + "/c.html", b);
    CHECK(count_matches(b.dom, "data-verdict=\"slower\" data-variant=\"rotate: maybe slowed\"") == 2);

    // Refused before anything is measured: another machine, another seed.
    json other = json::parse(test::read_file(dir + "/old.json"));
    other["machine"]["cpu_model"] = "Some Other CPU";
    test::write_file(dir + "/other.json", other.dump());
    auto refused = test::run({same, "--compare", dir + "/other.json"});
    CHECK(refused.status == 1);
    CHECK(refused.out.empty());
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
    CHECK_THAT(refused.err, Catch::Contains("another machine"));
    other = json::parse(test::read_file(dir + "/old.json"));
    other["config"]["seed"] = 5;
    test::write_file(dir + "/seeded.json", other.dump());
    auto seeded = test::run({same, "-s", "6", "--compare", dir + "/seeded.json"});
    CHECK(seeded.status == 1);
    CHECK_THAT(seeded.err, Catch::Contains("rerun with -s 5"));
}

TEST_CASE("the grader's batch page after a kill and a resume shows every hand-in once, as a rerun would", "[report][pages][grader]") {
    const std::string dir = test::scratch_dir("page-batch");
    const std::string handins = dir + "/handins", out = dir + "/out";
    fs::create_directories(handins);
    // Three hand-ins from the kernels fixtures: two that pass, one that fails its check.
    fs::copy_file(repo("tests/fixtures/kernels/fast.c"), handins + "/a-fast.c");
    fs::copy_file(repo("tests/fixtures/kernels/slowable.c"), handins + "/b-slowable.c");
    fs::copy_file(repo("tests/fixtures/kernels/broken.c"), handins + "/c-broken.c");
    std::string cmd = fmt::format("'{}' grade '{}' --out '{}' --trials 1 --recalibrate-every 2 --wall-timeout 20 "
                                  "--driver-args '--dims 32,64 --max-samples 3 --timeout 1'",
                                  repo("grader"), handins, out);
    auto killed = test::sh(cmd + " 2>/dev/null & pid=$!; "
                           "until [ \"$(wc -l < " + out + "/results.jsonl 2>/dev/null || echo 0)\" -ge 1 ]; do sleep 0.1; done; "
                           "kill -9 $pid; wait $pid; exit 0");
    REQUIRE(killed.status == 0);
    auto resumed = test::sh(cmd);
    INFO(resumed.err);
    REQUIRE(resumed.status == 0);
    const std::string page = test::read_file(out + "/report.html");

    // The page embeds results.jsonl's records, one per hand-in.
    const json data = embedded(page, "perflab-batch");
    REQUIRE(data["records"].size() == 3);
    std::set<std::string> ids;
    for (const auto& r : data["records"]) ids.insert(r["id"].get<std::string>());
    CHECK(ids == std::set<std::string>{"a-fast", "b-slowable", "c-broken"});
    CHECK(data["baselines"].size() >= 2);  // one before the kill, one or more after
    // Made from OUT alone: a rerun with nothing left to grade writes the same page.
    REQUIRE(test::sh(cmd + " 2>/dev/null").status == 0);
    CHECK(test::read_file(out + "/report.html") == page);

    Browsed b = browse(out + "/report.html", true);
    require_healthy_page(out + "/report.html", b);
    CHECK(body_number(b.dom, "data-handins") == 3);
    for (const auto& id : ids) CHECK_THAT(b.dom, Catch::Contains("data-id=\"" + id + "\""));

    // The student's page: their last run's report, schema-valid, under the grade.
    const std::string feedback = test::read_file(out + "/feedback/a-fast.html");
    const json report = embedded(feedback, "perflab-report");
    CHECK(test::validate_json(report, report_schema()).empty());
    CHECK(embedded(feedback, "perflab-grader")["status"] == "ok");
    Browsed f = browse(out + "/feedback/a-fast.html", false);
    require_healthy_page(out + "/feedback/a-fast.html", f);
    CHECK(body_number(f.dom, "data-variant-series") == timed_variants(report["kernels"]["rotate"]) + timed_variants(report["kernels"]["smooth"]));
}

TEST_CASE("--explain --html puts every finding on the page, from the explain JSON", "[report][pages]") {
    const std::string dir = test::scratch_dir("page-explain");
    auto r = test::run({test::build_driver("tests/fixtures/kernels/fast.c"), "--explain", "--kernel", "rotate", "--dims", "64",
                        "--json", dir + "/e.json", "--html", dir + "/e.html"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json findings = json::parse(test::read_file(dir + "/e.json"));
    REQUIRE(findings["schema"] == "perflab-explain-1");
    const std::string html = test::read_file(dir + "/e.html");
    CHECK(embedded(html, "perflab-explain") == findings);
    CHECK(test::validate_json(embedded(html, "perflab-report"), report_schema()).empty());
    Browsed b = browse(dir + "/e.html", false);
    require_healthy_page(dir + "/e.html", b);
    for (const auto& f : findings["findings"]) CHECK_THAT(b.dom, Catch::Contains("data-finding=\"" + f["id"].get<std::string>() + "\""));
}

namespace {
// Text as the DOM dump writes it inside an element.
std::string dom_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else out += c;
    }
    return out;
}

// The text of the element carrying `attribute` (markup dropped), or "" if none.
std::string element_text(const std::string& dom, const std::string& attribute) {
    const auto at = dom.find(attribute);
    if (at == std::string::npos) return "";
    const auto end = dom.find("</div>", dom.find("</span>", at));
    return std::regex_replace(dom.substr(at, end - at), std::regex("<[^>]*>|^[^>]*>"), "");
}

// A batch of the one good fixture hand-in, graded into DIR/out with the quick settings.
std::string grade_good_handin(const std::string& name, std::vector<std::string> extra) {
    const std::string dir = test::scratch_dir(name);
    fs::create_directories(dir + "/handins");
    fs::copy_file(test::fixture_handin("good"), dir + "/handins/good.c");
    std::vector<std::string> argv{repo("grader"), "grade", dir + "/handins", "--out", dir + "/out", "--driver-args",
                                  test::kQuickDriver};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = test::run(argv);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return dir;
}
}  // namespace

namespace {
// One driver run of a fixture kernels file (with `flags` for its compiler) with
// `args`, writing its --json report and --html page under a scratch directory
// `name`; the page is browsed and must be healthy and embed exactly that report.
struct DriverPage {
    json report;
    Browsed browsed;
};

DriverPage driver_page(const std::string& name, const std::string& fixture, std::vector<std::string> args,
                       const std::string& flags = "") {
    const std::string dir = test::scratch_dir(name);
    std::vector<std::string> argv{test::build_driver(fixture, flags)};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--json", dir + "/r.json", "--html", dir + "/r.html"});
    auto r = test::run(argv);
    INFO(r.err);
    REQUIRE(r.status == 0);
    DriverPage p{json::parse(test::read_file(dir + "/r.json")), browse(dir + "/r.html", false)};
    CHECK(embedded(test::read_file(dir + "/r.html"), "perflab-report") == p.report);
    require_healthy_page(dir + "/r.html", p.browsed);
    return p;
}
}  // namespace

TEST_CASE("a description or team holding markup is shown as text and the page still draws", "[report][pages]") {
    const auto [report, b] = driver_page("page-markup", "tests/fixtures/kernels/markup.c",
                                         {"--kernel", "rotate", "--dims", "32", "--max-samples", "3"});
    CHECK(body_number(b.dom, "data-variant-series") == timed_variants(report["kernels"]["rotate"]));
    for (const auto& v : report["kernels"]["rotate"]["variants"])
        CHECK_THAT(b.dom, Catch::Contains(dom_text(v["name"].get<std::string>())));
    CHECK_THAT(b.dom, Catch::Contains(dom_text(report["team"]["name1"].get<std::string>())));
}

TEST_CASE("the page's headline names the variant of the best speedup and the function the points are for", "[report][pages]") {
    // rotate() is slowed and graded; another variant is likely the best.
    const auto [report, b] = driver_page("page-kpis", "tests/fixtures/kernels/slowable.c",
                                         {"--kernel", "rotate", "--dims", "64", "--max-samples", "5"}, "-DSLOW=6");
    const json& k = report["kernels"]["rotate"];
    REQUIRE(k["best"].is_object());
    REQUIRE(k["points"].is_number());
    const std::string best = element_text(b.dom, "data-kpi=\"rotate-best\"");
    INFO(best);
    CHECK_THAT(best, Catch::Contains(fmt::format("{:.2f}", k["best"]["mean_speedup"].get<double>())));
    CHECK_THAT(best, Catch::Contains(k["best"]["name"].get<std::string>()));
    CHECK_THAT(best, !Catch::Contains("pts") && !Catch::Contains("points"));
    const std::string points = element_text(b.dom, "data-kpi=\"rotate-points\"");
    INFO(points);
    CHECK_THAT(points, Catch::Contains(fmt::format("{:.1f}/", k["points"].get<double>())));
    CHECK_THAT(points, Catch::Contains(k["points_from"].get<std::string>()));
}

TEST_CASE("the page says what a hollow marker means for a run timed beside the oracle", "[report][pages]") {
    const auto [report, b] = driver_page("page-hollow", "tests/fixtures/kernels/fast.c",
                                         {"--kernel", "rotate", "--dims", "32", "--max-samples", "3"});
    const json& config = report["config"];
    REQUIRE(config["baseline"] == "measured");
    // Convergence beside the oracle is the speedup's interval against the ratio
    // tolerance (results.hpp), not the K fastest samples within epsilon.
    const std::string tolerance = fmt::format("{:.1f}%", 100 * config["ratio_tolerance"].get<double>());
    CHECK_THAT(b.dom, Catch::Contains("Hollow markers: the rounds beside the oracle still disagreed by more than " +
                                      tolerance));
    CHECK_THAT(b.dom, !Catch::Contains("Hollow markers: the fastest samples"));
    // The chart draws the round the speedup stands for, and says so: its two CPEs divide.
    CHECK_THAT(b.dom, Catch::Contains("Their ratio is the speedup"));
}

TEST_CASE("a run on a busy machine says so at the top of its page, in the words of its text report", "[report][pages]") {
    const std::string dir = test::scratch_dir("page-busy");
    const std::string driver = test::build_driver("tests/fixtures/kernels/fast.c");
    test::CommandResult r;
    {
        test::BusyLoops hogs(3);  // every CPU wanted by three others
        r = test::run({driver, "-t", "--kernel", "rotate", "--dims", "64", "--max-samples", "5", "--json",
                       dir + "/r.json", "--html", dir + "/r.html"});
    }
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json report = json::parse(test::read_file(dir + "/r.json"));
    const json& busy = report["machine_load"]["busy"];
    if (!busy.is_string()) PERFLAB_SKIP("the run did not find the machine busy with every CPU spinning three times over");
    CHECK_THAT(r.out, Catch::Contains(busy.get<std::string>()));
    const Browsed b = browse(dir + "/r.html", false);
    require_healthy_page(dir + "/r.html", b);
    const std::regex notice("<div class=\"notice\" data-busy=\"\">([^<]*)</div>");
    std::smatch m;
    REQUIRE(std::regex_search(b.dom, m, notice));
    CHECK(m[1].str() == dom_text(busy.get<std::string>()));
    // At the top: before the first kernel's section.
    CHECK(b.dom.find("data-busy") < b.dom.find("<section"));
}

TEST_CASE("the batch page's points bands hold each kernel's points on one scale when their maxima differ", "[report][pages][grader]") {
    // Every correct kernel earns its maximum, 20 for rotate and 80 for smooth.
    const std::string policy = test::scratch_dir("page-bands-policy") + "/policy.toml";
    test::write_file(policy, "[rotate]\nmax_points = 20\ncurve = [[0, 20]]\n"
                             "[smooth]\nmax_points = 80\ncurve = [[0, 80]]\n");
    const std::string dir = grade_good_handin("page-bands", {"--trials", "1", "--policy", policy});
    const json good = test::records_by_id(dir + "/out/results.jsonl").at("good");
    REQUIRE(good["status"] == "ok");
    Browsed b = browse(dir + "/out/report.html", false);
    require_healthy_page(dir + "/out/report.html", b);
    const json bands = json::parse(std::regex_replace(body_attribute(b.dom, "data-points-bands"), std::regex("&quot;"), "\""));
    INFO(bands.dump());
    // Each kernel's one hand-in sits in the band whose label holds its points.
    for (const char* kernel : {"rotate", "smooth"}) {
        const double points = good[std::string(kernel) + "_points"].get<double>();
        int in_band = 0;
        for (std::size_t i = 0; i < bands["labels"].size(); ++i) {
            if (bands[kernel][i].get<int>() == 0) continue;
            in_band += bands[kernel][i].get<int>();
            const std::string label = bands["labels"][i].get<std::string>();
            const auto dash = label.find("\u2013");
            const double low = std::stod(label.substr(0, dash)), high = std::stod(label.substr(dash + 3));
            INFO(kernel << " " << points << " in " << label);
            CHECK(low <= points);
            CHECK(points <= high);
        }
        CHECK(in_band == 1);
    }
}

TEST_CASE("the batch page says how a default batch was baselined rather than that none was measured", "[report][pages][grader]") {
    const std::string dir = grade_good_handin("page-interleaved", {"--trials", "1"});
    // batch.json says how the batch was baselined; the page, made from OUT, must agree.
    REQUIRE(json::parse(test::read_file(dir + "/out/batch.json"))["baseline"] == "interleaved");
    Browsed b = browse(dir + "/out/report.html", false);
    require_healthy_page(dir + "/out/report.html", b);
    CHECK_THAT(b.dom, Catch::Contains("each run timed the naive oracle in turns with its own kernels"));
    CHECK_THAT(b.dom, !Catch::Contains("0 baseline measurements"));
    CHECK_THAT(b.dom, !Catch::Contains("a fixed --baseline file was used"));
}

TEST_CASE("a feedback page graded from several trials says its charted run's points are not the grade", "[report][pages][grader]") {
    const std::string dir = grade_good_handin("page-trials", {"--trials", "2"});
    const json good = test::records_by_id(dir + "/out/results.jsonl").at("good");
    const int trials = good["trials"].get<int>();
    REQUIRE(trials > 1);
    Browsed b = browse(dir + "/out/feedback/good.html", false);
    require_healthy_page(dir + "/out/feedback/good.html", b);
    const std::string total = element_text(b.dom, "data-kpi=\"total\"");
    INFO(total);
    CHECK_THAT(total, Catch::Contains(fmt::format("the median of {} runs", trials)));
    CHECK_THAT(b.dom, Catch::Contains(fmt::format("The charts show the last of {} timed runs", trials)));
    // The collapsed text is feedback/ID.txt, the grader's verdict above the driver's output.
    CHECK_THAT(b.dom, Catch::Contains("The text feedback (feedback/good.txt)"));
}

TEST_CASE("make screenshots (the README's way to take its pictures of the pages) is a Makefile target", "[report][pages]") {
    auto r = test::run({"make", "-n", "-C", repo("."), "screenshots"});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("mk/screenshots.sh"));
}

TEST_CASE("an unregistered graded function is labelled graded once in the charts", "[report][pages]") {
    // registration.c does not register its rotate(), which the driver times as graded anyway.
    const auto [report, b] = driver_page("page-graded-label", "tests/fixtures/kernels/registration.c",
                                         {"--kernel", "rotate", "--dims", "32", "--max-samples", "3"});
    std::string name;
    for (const auto& v : report["kernels"]["rotate"]["variants"])
        if (v["graded"].get<bool>()) name = v["name"].get<std::string>();
    REQUIRE(name == "rotate() function (graded; not registered)");
    // The legends, which the canvases carry in their labels.
    CHECK(count_matches(b.dom, "aria-label=\"CPE[^\"]*" + std::regex_replace(name, std::regex(R"([()])"), R"(\$&)")) == 1);
    CHECK_THAT(b.dom, !Catch::Contains("(graded; not registered) (graded)"));
}

TEST_CASE("the page shows each speedup's 95% interval from the JSON and marks an unsettled one as the text does", "[report][pages]") {
    // Five rounds are fewer than a paired interval needs (kMinPairs): every figure stays unsettled.
    const auto [report, b] = driver_page("page-speedups", "tests/fixtures/kernels/fast.c",
                                         {"--kernel", "rotate", "--dims", "64", "--max-samples", "5"});
    int unsettled = 0;
    for (const auto& v : report["kernels"]["rotate"]["variants"]) {
        if (!v["correct"].get<bool>()) continue;
        for (const auto& d : v["dims"]) {
            REQUIRE(d.contains("speedup_interval"));
            REQUIRE_FALSE(d["converged"].get<bool>());
            const std::string cell = fmt::format("{:.2f}\u00d7 [{:.2f}, {:.2f}] *", d["speedup"].get<double>(),
                                                 d["speedup_interval"][0].get<double>(), d["speedup_interval"][1].get<double>());
            INFO(cell);
            CHECK_THAT(b.dom, Catch::Contains(cell));
        }
        unsettled += v["mean_speedup"].is_number() && !v["converged"].get<bool>();
    }
    REQUIRE(unsettled > 0);
    CHECK_THAT(b.dom, Catch::Contains("* unsure: the rounds beside the oracle still disagreed"));
    // The mean speedup on the scoring curve says so too, in its legend.
    std::smatch m;
    REQUIRE(std::regex_search(b.dom, m, std::regex("aria-label=\"Mean speedup[^\"]*\"")));
    CHECK(count_matches(m[0].str(), "not converged") == unsettled);
}

TEST_CASE("the miss-count bars tell their series apart by hatching as well as colour", "[report][pages]") {
    const auto [report, b] = driver_page("page-hatching", "tests/fixtures/kernels/fast.c",
                                         {"--kernel", "rotate", "--dims", "64", "--max-samples", "3", "--simulate"});
    REQUIRE(report["simulation_geometry"].is_string());
    std::smatch m;
    REQUIRE(std::regex_search(b.dom, m, std::regex("aria-label=\"Misses per pixel[^\"]*\"[^>]*data-patterns=\"([^\"]*)\"")));
    std::istringstream in(m[1].str());
    std::vector<std::string> patterns{std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
    CHECK(static_cast<int>(patterns.size()) == timed_variants(report["kernels"]["rotate"]));
    CHECK(std::set<std::string>(patterns.begin(), patterns.end()).size() == patterns.size());
}

TEST_CASE("the batch page's outliers are among the hand-ins graded ok: a failed one's speedup neither counts nor is flagged", "[report][pages][grader]") {
    const std::string out = test::scratch_dir("page-outliers");
    // Five ok hand-ins close together and one far above them; three whose smooth failed,
    // whose rotate speedups (kept in their records) would move the quartiles up to it.
    std::string lines;
    auto add = [&](const std::string& id, grader::Status status, double rotate, std::optional<double> smooth) {
        grader::Record r;
        r.id = id;
        r.status = status;
        r.reason = status == grader::Status::ok ? "graded" : "smooth: wrong pixels";
        r.rotate_speedup = rotate;
        r.smooth_speedup = smooth;
        r.trials = 1;
        lines += grader::to_json(r).dump() + "\n";
    };
    for (int i = 0; i < 5; ++i) add(fmt::format("ok{}", i), grader::Status::ok, 2.0 + 0.1 * i, 3.0 + 0.1 * i);
    add("far", grader::Status::ok, 9.0, 3.2);
    for (int i = 0; i < 3; ++i) add(fmt::format("failed{}", i), grader::Status::wrong_result, 9.1 + 0.1 * i, std::nullopt);
    test::write_file(out + "/results.jsonl", lines);
    grader::write_batch_page(out, default_policy());
    Browsed b = browse(out + "/report.html", false);
    require_healthy_page(out + "/report.html", b);
    CHECK(body_number(b.dom, "data-outliers") == 1);
    CHECK_THAT(b.dom, Catch::Contains("far: rotate 9.00\u00d7"));
    CHECK_THAT(b.dom, !Catch::Contains("failed0: rotate"));
}

TEST_CASE("a count of one takes the singular on the batch page and in the grader's output", "[report][pages][grader]") {
    const std::string dir = grade_good_handin("page-singular", {"--trials", "1"});
    Browsed b = browse(dir + "/out/report.html", false);
    require_healthy_page(dir + "/out/report.html", b);
    CHECK_THAT(b.dom, Catch::Contains("perflab batch: 1 hand-in graded"));
    // Run again: nothing is left to grade, and the grader says what it kept.
    auto again = test::run({repo("grader"), "grade", dir + "/handins", "--out", dir + "/out", "--driver-args",
                            test::kQuickDriver, "--trials", "1"});
    INFO(again.err);
    REQUIRE(again.status == 0);
    CHECK_THAT(again.err, Catch::Contains("1 of 1 hand-in already graded in " + dir + "/out (--force regrades it)"));
}

TEST_CASE("the scoring chart draws full marks and no points whole, on a points axis that ends at the maximum", "[report][pages]") {
    // Every rotate earns its 20 points and every smooth none: both markers sit on an edge of the chart.
    const std::string policy = test::scratch_dir("page-edges-policy") + "/policy.toml";
    test::write_file(policy, "[rotate]\nmax_points = 20\ncurve = [[0, 20]]\n"
                             "[smooth]\nmax_points = 30\ncurve = [[1000, 0], [1001, 30]]\n");
    const auto [report, b] = driver_page("page-edges", "tests/fixtures/kernels/fast.c",
                                         {"--dims", "64", "--max-samples", "3", "--policy", policy});
    for (const auto& [kernel, max] : {std::pair{"rotate", 20}, std::pair{"smooth", 30}}) {
        INFO(kernel);
        std::smatch m;
        REQUIRE(std::regex_search(b.dom, m, std::regex(fmt::format("<canvas[^>]*aria-label=\"Mean speedup and the points it "
                                                                   "earns \\(max {}\\)[^>]*>", max))));
        const std::string canvas = m[0].str();
        INFO(canvas);
        CHECK_THAT(canvas, Catch::Contains("data-cut-markers=\"0\""));
        CHECK_THAT(canvas, Catch::Contains(fmt::format("data-y-max=\"{}\"", max)));
    }
    CHECK(body_number(b.dom, "data-cut-markers") == 0);
}

TEST_CASE("--compare with nothing in common names no units and draws no table", "[report][compare][pages]") {
    const std::string dir = test::scratch_dir("compare-nothing");
    const std::string driver = test::build_driver("tests/fixtures/kernels/fast.c");
    auto old_run = test::run({driver, "--kernel", "rotate", "--dims", "128", "--max-samples", "3", "--json", dir + "/old.json"});
    INFO(old_run.err);
    REQUIRE(old_run.status == 0);
    auto r = test::run({driver, "--kernel", "rotate", "--dims", "64", "--max-samples", "3", "--compare", dir + "/old.json",
                        "--html", dir + "/c.html"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json compare = embedded(test::read_file(dir + "/c.html"), "perflab-compare");
    REQUIRE(compare["rows"].empty());
    const auto header = test::lines_starting_with(r.out, "Compared with");
    REQUIRE(header.size() == 1);
    CHECK_THAT(header[0], !Catch::Contains("oracle") && !Catch::Contains("measured:"));
    CHECK(test::lines_starting_with(r.out, "Kernel ").empty());
    CHECK_THAT(r.out, Catch::Contains("not compared: rotate: rotate: Current working version at 64 (the old report has 128)"));
    Browsed b = browse(dir + "/c.html", false);
    require_healthy_page(dir + "/c.html", b);
    const std::string drawn = section(b.dom, "compare");
    INFO(drawn);
    CHECK_THAT(drawn, !Catch::Contains("oracle") && !Catch::Contains("noise band") && !Catch::Contains("<table"));
    CHECK_THAT(drawn, Catch::Contains("Not compared: rotate: rotate: Current working version at 64"));
}

TEST_CASE("--compare pairs the graded function of a -g report with the one a normal run registers", "[report][compare]") {
    const std::string dir = test::scratch_dir("compare-graded");
    // fast.c registers its rotate() twice: as "rotate: Current working version", then as "second_rotate: ...".
    const std::string driver = test::build_driver("tests/fixtures/kernels/fast.c");
    const std::vector<std::string> quick{"--dims", "64", "--max-samples", "3"};
    auto timed = [&](std::vector<std::string> argv) {
        argv.insert(argv.begin(), driver);
        argv.insert(argv.end(), quick.begin(), quick.end());
        auto r = test::run(argv);
        INFO(r.err);
        REQUIRE(r.status == 0);
        return r;
    };
    timed({"--json", dir + "/normal.json"});
    timed({"-g", "--json", dir + "/graded.json"});
    const json normal = json::parse(test::read_file(dir + "/normal.json"));
    const json graded = json::parse(test::read_file(dir + "/graded.json"));
    for (const auto& [kernel, k] : graded["kernels"].items()) {
        REQUIRE(k["variants"].size() == 1);
        REQUIRE(k["variants"][0]["graded"].get<bool>());
    }
    // Either way round: each kernel's graded function is one row, under this run's name.
    for (const auto& [old_r, new_r] : {std::pair{&normal, &graded}, std::pair{&graded, &normal}}) {
        const Comparison c = compare_reports(*old_r, *new_r, "old.json");
        for (const auto& [kernel, nk] : (*new_r)["kernels"].items()) {
            std::string new_name, old_name;
            for (const auto& v : nk["variants"])
                if (v["graded"].get<bool>() && new_name.empty()) new_name = v["name"].get<std::string>();
            for (const auto& v : (*old_r)["kernels"][kernel]["variants"])
                if (v["graded"].get<bool>() && old_name.empty()) old_name = v["name"].get<std::string>();
            INFO(kernel << ": " << new_name << " / " << old_name);
            REQUIRE(new_name != old_name);
            CHECK(std::count_if(c.rows.begin(), c.rows.end(), [&](const ComparisonRow& r) {
                      return r.kernel == kernel && r.variant == new_name && r.dim == 64;
                  }) == 1);
            CHECK(std::count_if(c.renamed.begin(), c.renamed.end(), [&](const std::string& s) {
                      return s.find(new_name) != std::string::npos && s.find(old_name) != std::string::npos;
                  }) == 1);
            for (const auto& u : c.unmatched) CHECK_THAT(u, !Catch::Contains(new_name) && !Catch::Contains(old_name));
        }
    }
    // Through the driver: the -g run compared with the normal report prints the row.
    auto r = timed({"-g", "--compare", dir + "/normal.json"});
    CHECK(std::regex_search(r.out, std::regex(R"(\nrotate +rotate\(\) function +64 )")));
    CHECK_THAT(r.out, Catch::Contains("rotate: rotate() function is rotate: Current working version in the old report"));
}

TEST_CASE("a legend entry wider than its chart is cut in its middle, keeping its figures and its not-converged mark", "[report][pages]") {
    // fast.c's second rotate has a long description; three samples leave every figure unsettled.
    const auto [report, b] = driver_page("page-legend", "tests/fixtures/kernels/fast.c",
                                         {"--kernel", "rotate", "--dims", "64", "--max-samples", "3"});
    std::smatch m;
    REQUIRE(std::regex_search(b.dom, m, std::regex("<canvas[^>]*aria-label=\"Mean speedup[^>]*>")));
    const std::string canvas = m[0].str();
    INFO(canvas);
    // The whole entry, as the canvas's label carries it, is longer than one line of the chart.
    CHECK_THAT(canvas, Catch::Contains("second_rotate: the same code, registered twice: "));
    CHECK_THAT(canvas, Catch::Contains("data-cut-legend=\"0\""));
    CHECK(body_number(b.dom, "data-cut-legend") == 0);
}

TEST_CASE("the scoring curve, drawn without markers, is a line in its chart's legend", "[report][pages]") {
    const auto [report, b] = driver_page("page-curve-legend", "tests/fixtures/kernels/fast.c",
                                         {"--kernel", "rotate", "--dims", "64", "--max-samples", "3"});
    std::smatch m;
    REQUIRE(std::regex_search(b.dom, m, std::regex("<canvas[^>]*aria-label=\"Mean speedup[^\"]*: scoring curve \\(policy\\);"
                                                   "[^>]*data-legend-markers=\"([^\" ]*)")));
    CHECK(m[1].str() == "line");
}
