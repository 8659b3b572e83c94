// The grader on the model basis (docs/model.md, docs/grader.md): one trial per
// hand-in, the model's speedups in every output, hand-ins graded on several cores
// with the same records as on one, a flagged kernel forbidden, and a policy
// calibrated on the model machine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "driver/core/scoring.hpp"
#include "grader/trials.hpp"
#include "grader_outputs.hpp"
#include "harness.hpp"

using namespace perflab;
using namespace perflab::grader;
using nlohmann::json;
using perflab::test::kQuickDriver;
using perflab::test::records_by_id;
using test::repo;

namespace {

const std::string kModelPolicy = "basis = \"model\"\n"
                                 "[rotate]\nmax_points = 50\ncurve = [[0.5, 0], [1.5, 50]]\n"
                                 "[smooth]\nmax_points = 50\ncurve = [[0.5, 0], [1.5, 50]]\n";

std::vector<std::string> grade_argv(const std::string& dir, const std::string& out, const std::string& jobs) {
    return {repo("grader"), "grade",  dir + "/handins", "--out",          dir + "/" + out, "--policy",
            dir + "/policy.toml",     "--jobs",         jobs,             "--driver-args", kQuickDriver,
            "--wall-timeout",         "120"};
}

// What a record says of the grade, without when and where it was committed.
json grade_of(json record) {
    for (const char* key : {"graded_at_ns", "node"}) record.erase(key);
    // A wrong kernel's first wrong pixel is on the check's inputs, which are random in
    // every run on purpose (a kernel must not know them): only the status is the same.
    if (record["status"] != "ok") record.erase("reason");
    return record;
}

DriverRun run_reporting(const json& report) {
    DriverRun run;
    run.finished.exit_code = 0;
    run.report = report;
    return run;
}

json report_with_rotate(const json& graded_rotate, const json& extra = json::object()) {
    json smooth = {{"graded", true}, {"correct", true}, {"mean_speedup", 1.1}, {"model_mean_speedup", 1.3},
                   {"model_flag", nullptr}};
    json report = {{"kernels", {{"rotate", {{"variants", json::array({graded_rotate})}}},
                                {"smooth", {{"variants", json::array({smooth})}}}}}};
    report.update(extra);
    return report;
}

}  // namespace

TEST_CASE("under basis = \"model\" a batch grades each hand-in once, and --jobs 2 gives the records --jobs 1 gives",
          "[grader][model]") {
    const std::string dir = test::scratch_dir("grader-model-jobs");
    std::filesystem::create_directories(dir + "/handins");
    // Two byte-identical copies, another correct hand-in, a wrong one and one that does not build.
    for (const auto& [id, fixture] : std::map<std::string, std::string>{
             {"copy_a", "good"}, {"copy_b", "good"}, {"nosmooth", "nosmooth"}, {"wrong", "wrong"},
             {"broken", "compileerror"}})
        test::write_file(dir + "/handins/" + id + ".c", test::read_file(test::fixture_handin(fixture)));
    test::write_file(dir + "/policy.toml", kModelPolicy);

    auto one = test::run(grade_argv(dir, "one", "1"));
    INFO(one.err);
    REQUIRE(one.status == 0);
    auto two = test::run(grade_argv(dir, "two", "2"));
    INFO(two.err);
    REQUIRE(two.status == 0);
    CHECK_THAT(two.err, Catch::Contains("grading 2 hand-ins at once"));

    auto a = records_by_id(dir + "/one/results.jsonl"), b = records_by_id(dir + "/two/results.jsonl");
    REQUIRE(a.size() == 5);
    REQUIRE(b.size() == 5);
    for (const auto& [id, record] : a) {
        INFO(id << ": " << record.dump() << "\n" << b[id].dump());
        CHECK(grade_of(record) == grade_of(b[id]));
        CHECK(record["basis"] == "model");
    }
    // Identical code, identical grade, to the last digit; one trial each.
    CHECK(a["copy_a"]["status"] == "ok");
    CHECK(a["copy_a"]["trials"] == 1);
    CHECK(a["copy_a"]["rotate_speedup"] == a["copy_b"]["rotate_speedup"]);
    CHECK(a["copy_a"]["smooth_speedup"] == a["copy_b"]["smooth_speedup"]);
    CHECK(a["copy_a"]["total"] == a["copy_b"]["total"]);
    CHECK_THAT(a["copy_a"]["reason"].get<std::string>(), Catch::StartsWith("graded on the model machine"));
    // The points are the policy's for the model speedup the record holds.
    const ScoringPolicy policy = parse_policy(kModelPolicy, "policy.toml");
    CHECK(a["copy_a"]["rotate_points"].get<double>() ==
          Approx(policy.rotate.points(a["copy_a"]["rotate_speedup"].get<double>())).margin(0.05));
    CHECK(a["wrong"]["status"] == "wrong-result");
    CHECK(a["broken"]["status"] == "compile-error");

    // Every output says which basis gave the points.
    const std::string csv = test::read_file(dir + "/one/gradebook.csv");
    CHECK_THAT(csv, Catch::StartsWith("id,status,rotate_speedup,smooth_speedup,rotate_points,smooth_points,total,basis,"
                                      "reason\n"));
    CHECK_THAT(csv, Catch::Contains("\ncopy_a,ok,") && Catch::Contains(",model,\"graded on the model machine"));
    CHECK(test::embedded(test::read_file(dir + "/one/report.html"), "perflab-batch")["basis"] == "model");
    const std::string feedback = test::read_file(dir + "/one/feedback/copy_a.txt");
    CHECK_THAT(feedback, Catch::Contains("Model speedup") && Catch::Contains("the policy's basis"));
    CHECK(feedback.find("trial speedups:") == std::string::npos);  // one trial: no median to show
}

TEST_CASE("more than one job under the timing basis, or a timed baseline under the model, is refused in one line",
          "[grader][model]") {
    const std::string dir = test::scratch_dir("grader-model-refusals");
    std::filesystem::create_directories(dir + "/handins");
    test::write_file(dir + "/handins/a.c", test::read_file(test::fixture_handin("good")));
    test::write_file(dir + "/timing.toml", "[rotate]\nmax_points = 50\ncurve = [[1, 0], [3, 50]]\n"
                                           "[smooth]\nmax_points = 50\ncurve = [[1, 0], [3, 50]]\n");
    test::write_file(dir + "/policy.toml", kModelPolicy);
    struct Case {
        std::vector<std::string> extra;
        const char* says;
    };
    for (const auto& c : std::vector<Case>{
             {{"--jobs", "2"}, "--jobs 2 needs basis = \"model\" in the policy"},
             {{"--jobs", "2", "--policy", dir + "/timing.toml"}, "--jobs 2 needs basis = \"model\" in the policy"},
             {{"--policy", dir + "/policy.toml", "--recalibrate-every", "2"}, "--recalibrate-every times baselines"},
         }) {
        std::vector<std::string> argv{repo("grader"), "grade", dir + "/handins", "--out", dir + "/out"};
        argv.insert(argv.end(), c.extra.begin(), c.extra.end());
        auto r = test::run(argv);
        INFO(r.err);
        CHECK(r.status != 0);
        CHECK_THAT(r.err, Catch::Contains(c.says));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_FALSE(std::filesystem::exists(dir + "/out/results.jsonl"));
    }
}

TEST_CASE("a kernel the model flags is forbidden; a model that did not run is the grader's failure", "[grader][model]") {
    SandboxSettings sandbox;
    json flagged = {{"graded", true}, {"correct", true}, {"mean_speedup", 1.2}, {"model_mean_speedup", nullptr},
                    {"model_flag", "under the simulator its result at dim 64 differs from the oracle's"}};
    Trial t = judge(run_reporting(report_with_rotate(flagged)), sandbox, Basis::model);
    CHECK(t.outcome.status == Status::forbidden);
    CHECK_THAT(t.outcome.reason, Catch::StartsWith("rotate(): under the simulator"));
    CHECK_FALSE(t.rotate.correct);
    CHECK(t.smooth.correct);
    CHECK(t.smooth.speedup == 1.3);  // the model's, not the timed 1.1
    // On the timing basis the same report grades rotate by its timed speedup.
    Trial timed = judge(run_reporting(report_with_rotate(flagged)), sandbox, Basis::timing);
    CHECK(timed.outcome.status == Status::ok);
    CHECK(timed.rotate.speedup == 1.2);

    json unmodelled = flagged;
    unmodelled["model_flag"] = nullptr;
    Trial u = judge(run_reporting(report_with_rotate(unmodelled, {{"model_unavailable", "valgrind is not installed"}})),
                    sandbox, Basis::model);
    CHECK(u.outcome.status == Status::internal_error);
    CHECK_THAT(u.outcome.reason, Catch::Contains("no model speedup") && Catch::Contains("valgrind is not installed"));
}

TEST_CASE("calibrate on the model basis writes the same policy every time, full marks at the reference's model speedups",
          "[grader][model]") {
    const std::string dir = test::scratch_dir("grader-model-calibrate");
    test::write_file(dir + "/base.toml", kModelPolicy + "[model]\nseed = 7\n");
    std::vector<std::string> written;
    for (const char* name : {"first.toml", "second.toml"}) {
        auto r = test::run({repo("grader"), "calibrate", "--policy", dir + "/base.toml", "--out", dir + "/" + name,
                            "--driver-args", "--dims 64,128 --max-samples 3"});
        INFO(r.err);
        REQUIRE(r.status == 0);
        written.push_back(test::read_file(dir + "/" + name));
    }
    CHECK(written[0] == written[1]);  // no timing in it: the same bytes
    const ScoringPolicy p = load_policy(dir + "/first.toml");
    CHECK(p.basis == Basis::model);
    CHECK(p.model.seed == 7);  // the given model is kept

    // The full marks are where the reference variants' model speedups are, as the
    // driver reports them for the same model and dims.
    auto d = test::run({repo("driver"), "-t", "--host", repo("build/solutions-host"), "--policy", dir + "/base.toml",
                        "--dims", "64,128", "--max-samples", "3", "--json", dir + "/reference.json"});
    INFO(d.err);
    REQUIRE(d.status == 0);
    const json report = json::parse(test::read_file(dir + "/reference.json"));
    // (The variants calibrate takes: reference/variants.def's "unrolled" and "two-pass".)
    auto model_speedup = [&](const char* kernel, const char* part) {
        for (const auto& v : report["kernels"][kernel]["variants"])
            if (v["name"].get<std::string>().find(part) != std::string::npos) return v["model_mean_speedup"].get<double>();
        FAIL("no variant with " << part);
        return 0.0;
    };
    CHECK(p.rotate.full_marks_speedup() == Approx(model_speedup("rotate", "inner loop unrolled x4")).epsilon(1e-3));
    CHECK(p.smooth.full_marks_speedup() == Approx(model_speedup("smooth", "smooth: two-pass, vertical")).epsilon(1e-3));
}
