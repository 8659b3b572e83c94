// ./grader grade --slurm on a real single-node Slurm cluster started on this
// machine by tests/slurm/cluster.sh (munge, slurmctld and slurmd on 127.0.0.1, all
// state in a temporary directory, no cgroup touched), plus the pieces that read
// Slurm's answers and compare the nodes' baselines.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include <regex>

#include "grader_outputs.hpp"
#include "harness.hpp"
#include "grader/slurm.hpp"
#include "grader/slurm_answers.hpp"
#include "grader/slurm_baselines.hpp"
#include "grader/slurm_options.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using namespace perflab::grader;
using nlohmann::json;
using perflab::test::gradebook_statuses;
using perflab::test::kQuickDriver;
using perflab::test::records_by_id;
using test::repo;

namespace {


// One cluster for the whole test binary: starting one takes a few seconds.
class Cluster {
public:
    static Cluster& get() {
        static Cluster c;
        return c;
    }
    std::string skip_reason, error, dir;
    std::string conf() const { return dir + "/slurm.conf"; }

private:
    Cluster() {
        if (geteuid() != 0) {
            skip_reason = "they start slurmctld and slurmd, which needs root; run the tests as root";
            return;
        }
        // A cluster a killed test run left behind is stopped first (by its pid files).
        const std::string last = repo("build/tests/tmp/slurm-cluster.last");
        std::string old = test::read_file(last);
        if (!old.empty() && fs::exists(old)) {
            test::run({repo("tests/slurm/cluster.sh"), "stop", old});
            fs::remove_all(old);
        }
        std::string tmpl = (fs::temp_directory_path() / "perflab-slurm-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) {
            error = "cannot create a temporary directory for the cluster";
            return;
        }
        dir = tmpl;
        test::write_file(last, dir);
        auto r = test::run({repo("tests/slurm/cluster.sh"), "start", dir});
        if (r.status != 0)
            error = "tests/slurm/cluster.sh start failed: " + r.err + "\n" +
                    test::sh("tail -n 20 " + dir + "/log/*.log 2>/dev/null").out;
    }
    ~Cluster() {
        if (dir.empty()) return;
        test::run({repo("tests/slurm/cluster.sh"), "stop", dir});
        std::error_code ec;
        fs::remove_all(dir, ec);
        fs::remove(repo("build/tests/tmp/slurm-cluster.last"), ec);
    }
};

#define NEED_CLUSTER()                        \
    Cluster& cluster = Cluster::get();        \
    if (!cluster.skip_reason.empty())         \
        PERFLAB_SKIP(cluster.skip_reason);    \
    INFO(cluster.error);                      \
    REQUIRE(cluster.error.empty())

std::vector<std::string> grade_argv(const std::string& handins, const std::string& out) {
    return {repo("grader"), "grade", handins, "--out", out, "--trials", "1", "--driver-args", kQuickDriver,
            "--wall-timeout", "30"};  // as the grader tests: 8 s was hit under load
}

std::vector<std::string> slurm_argv(const std::string& handins, const std::string& out) {
    auto argv = grade_argv(handins, out);
    argv.insert(argv.end(), {"--slurm", "--slurm-poll", "0.5"});
    return argv;
}

std::string shell_line(const std::vector<std::string>& argv) {
    std::string cmd;
    for (const auto& a : argv) cmd += "'" + a + "' ";
    return cmd;
}

// Hand-ins under DIR/handins named ID.c, from fixture cases.
std::string make_handins(const std::string& dir, const std::map<std::string, std::string>& source) {
    std::string handins = dir + "/handins";
    for (const auto& [id, name] : source) test::write_file(handins + "/" + id + ".c", test::read_file(test::fixture_handin(name)));
    return handins;
}

// DIR/bin/TOOL runs the real TOOL, except that while DIR/down exists it fails on
// the calls whose arguments match the shell PATTERN, as Slurm's tools do when the
// controller does not answer. Returns the directory to put first on PATH.
std::string flaky_tool(const std::string& dir, const std::string& tool, const std::string& pattern) {
    std::string real = test::sh("command -v " + tool).out;
    real.erase(real.find_last_not_of('\n') + 1);
    REQUIRE(!real.empty());
    std::string wrapper = dir + "/bin/" + tool;
    test::write_file(wrapper, fmt::format("#!/bin/sh\n"
                                          "case \" $* \" in {}) if [ -e '{}/down' ]; then\n"
                                          "  echo '{}: error: Unable to contact slurm controller (connect failure)' >&2; exit 1\n"
                                          "fi;; esac\n"
                                          "exec '{}' \"$@\"\n",
                                          pattern, dir, tool, real));
    fs::permissions(wrapper, fs::perms::owner_all);
    return dir + "/bin";
}

// What a batch graded while one of Slurm's tools was down left behind.
struct DownRun {
    test::CommandResult run;
    std::string err;
    std::map<std::string, nlohmann::json> records;
};

// Grades hand-ins a and b (both good) through Slurm in the background, in the
// scratch directory NAME with ARGS added and TOOL failing as flaky_tool's does on
// calls matching PATTERN: cancels the array's task 1 while it waits behind task 0
// with the tool down, and brings the tool back once the grader's stderr says SEEN.
DownRun grade_while_down(const Cluster& cluster, const std::string& name, const std::string& tool,
                         const std::string& pattern, const std::vector<std::string>& args, const std::string& seen) {
    std::string dir = test::scratch_dir(name);
    std::string handins = make_handins(dir, {{"a", "good"}, {"b", "good"}});
    std::string path = flaky_tool(dir, tool, pattern);
    auto argv = slurm_argv(handins, dir + "/out");
    argv.insert(argv.end(), args.begin(), args.end());
    DownRun down;
    down.run = test::sh("export SLURM_CONF=" + cluster.conf() + " PATH=" + path + ":$PATH; " + shell_line(argv) +
                        " 2>" + dir + "/err & pid=$!\n" + R"(
first=; for i in $(seq 600); do first=$(squeue -h -o %F -n perflab-grade | head -n 1); [ -n "$first" ] && break; sleep 0.1; done
[ -n "$first" ] || { kill $pid; echo "no job"; exit 1; }
touch )" + dir + R"(/down
scancel "${first}_1"
for i in $(seq 600); do grep -qs ')" + seen + "' " + dir + R"(/err && break; sleep 0.1; done
rm -f )" + dir + R"(/down
wait $pid
)");
    down.err = test::read_file(dir + "/err");
    down.records = records_by_id(dir + "/out/results.jsonl");
    return down;
}

std::string host() {
    char h[256] = "";
    gethostname(h, sizeof h - 1);
    return h;
}

}  // namespace

TEST_CASE("Slurm's answers are read field by field: sbatch, squeue, scontrol, sacct", "[slurm]") {
    auto live = parse_squeue("12|0|RUNNING|node1|None\n12|3|PENDING||JobArrayTaskLimit\nnot a line\n");
    REQUIRE(live.size() == 2);
    CHECK(live[0].job == "12");
    CHECK(live[0].task == 0);
    CHECK(live[0].state == "RUNNING");
    CHECK(live[1].task == 3);
    CHECK(live[1].state == "PENDING");

    // ReqNodeList/ExcNodeList come before NodeList: the field must match whole keys.
    auto ends = parse_scontrol_jobs(
        "JobId=14 ArrayJobId=12 ArrayTaskId=2 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 ReqNodeList=(null) "
        "ExcNodeList=(null) NodeList=node7 BatchHost=node7\n"
        "JobId=12 ArrayJobId=12 ArrayTaskId=4-9%1 JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0\n"
        "JobId=15 ArrayJobId=12 ArrayTaskId=3 JobState=PREEMPTED Reason=None ExitCode=0:0 ReqNodeList=(null) "
        "NodeList=(null)\n");
    REQUIRE(ends.size() == 2);
    CHECK(ends[2].state == "TIMEOUT");
    CHECK(ends[2].reason == "TimeLimit");
    CHECK(ends[2].exit_code == "0:15");
    CHECK(ends[2].node == "node7");
    CHECK(ends[3].state == "PREEMPTED");
    CHECK(ends[3].node.empty());

    auto acct = parse_sacct("12_0|COMPLETED|0:0|node1\n12_1|CANCELLED by 0|0:15|node2\n13_0|FAILED|1:0|node3\n", "12");
    REQUIRE(acct.size() == 2);
    CHECK(acct[1].state == "CANCELLED");
    CHECK(acct[1].node == "node2");
    CHECK(acct[1].source == "sacct");

    CHECK(parse_sbatch_job("4211\n") == "4211");
    CHECK(parse_sbatch_job("4211;cluster0\n") == "4211");  // sbatch --parsable on a federation
    CHECK_FALSE(parse_sbatch_job("sbatch: error: Batch job submission failed\n"));
    CHECK_FALSE(parse_sbatch_job(""));
}

TEST_CASE("a node whose baseline is far from the others' is flagged as an outlier", "[slurm]") {
    auto node = [](std::string name, double scale) {
        return NodeBaseline{name, "/b/" + name + ".toml", name + "-task", "",
                            {{64, 1.0 * scale}, {128, 2.0 * scale}}, {{64, 10.0 * scale}, {128, 11.0 * scale}}};
    };
    json same = compare_baselines({node("a", 1.0), node("b", 1.02), node("c", 0.99), node("d", 1.01)});
    CHECK(same["outlier_nodes"].empty());
    CHECK(same["spread_percent"]["rotate"].get<double>() < 4);

    json slow = compare_baselines({node("a", 1.0), node("b", 1.02), node("c", 0.99), node("d", 1.5)});
    CHECK(slow["outlier_nodes"] == json::array({"d"}));
    CHECK(slow["spread_percent"]["rotate"].get<double>() > 40);
    for (const auto& b : slow["baselines"]) CHECK(b["outlier"] == (b["node"] == "d"));
    CHECK(slow["baselines"][3]["deviation_percent"]["smooth"].get<double>() > 40);
}

TEST_CASE("Slurm options come from the policy's [slurm] table; mistakes are one line", "[slurm]") {
    std::string dir = test::scratch_dir("slurm-options");
    std::string policy = "[rotate]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n"
                         "[smooth]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n";
    test::write_file(dir + "/p.toml", policy + "[slurm]\nenabled = true\npartition = \"grading\"\narray_limit = 8\n"
                                               "exclusive = \"cores\"\nsbatch_args = [\"--qos=exam\"]\n");
    auto o = read_slurm_options(dir + "/p.toml");
    CHECK(o.enabled);
    CHECK(o.partition == std::optional<std::string>("grading"));
    CHECK(o.array_limit == std::optional<std::size_t>(8));
    CHECK(o.exclusive == std::optional<std::string>("cores"));
    CHECK(o.sbatch_args == std::optional<std::vector<std::string>>(std::vector<std::string>{"--qos=exam"}));
    // The scoring policy reader still takes the file.
    CHECK(load_policy(dir + "/p.toml").rotate.max_points == 50);

    test::write_file(dir + "/bad.toml", policy + "[slurm]\npartiton = \"x\"\n");
    CHECK_THROWS_WITH(read_slurm_options(dir + "/bad.toml"), Catch::Contains("unknown key [slurm] partiton"));

    // --slurm without Slurm's tools: one line naming the tool and the package.
    auto r = test::sh("PATH=/nonexistent " + shell_line(slurm_argv(dir, dir + "/out")));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("sbatch") && Catch::Contains("slurm-client"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    auto no_flag = test::run({repo("grader"), "grade", dir, "--out", dir + "/out", "--partition", "p"});
    CHECK(no_flag.status == 1);
    CHECK_THAT(no_flag.err, Catch::Contains("need --slurm"));
}

TEST_CASE("[slurm] numbers outside the command line's ranges are refused, never cut to fit", "[slurm-options]") {
    std::string dir = test::scratch_dir("slurm-option-ranges");
    std::string policy = "[rotate]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n"
                         "[smooth]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n[slurm]\n";
    auto refusal = [&](const std::string& line) {
        test::write_file(dir + "/p.toml", policy + line + "\n");
        try {
            read_slurm_options(dir + "/p.toml");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("taken");
    };
    // 9999999999 CPUs once became 1410065407 as an int; --slurm-cpus refuses it.
    CHECK_THAT(refusal("cpus_per_task = 9999999999"), Catch::Contains("cpus_per_task must be an integer from 1 to 4096"));
    CHECK_THAT(refusal("shard_size = 5000"), Catch::Contains("shard_size must be an integer from 1 to 1000"));
    // 0 retries is allowed, so "a positive integer" was not what -1 lacked.
    CHECK_THAT(refusal("retries = -1"), Catch::Contains("retries must be an integer from 0 to 100"));
    CHECK(refusal("retries = 0") == "taken");
    CHECK(refusal("time_minutes = 0") == "taken");  // the default, computed from the limits

    // Through the grader: one line before anything is graded.
    test::write_file(dir + "/p.toml", policy + "cpus_per_task = 9999999999\n");
    fs::create_directories(dir + "/handins");
    test::write_file(dir + "/handins/alice.c", test::read_file(test::fixture_handin("good")));
    auto r = test::run({repo("grader"), "grade", dir + "/handins", "--out", dir + "/out", "--policy", dir + "/p.toml",
                        "--trials", "1", "--driver-args", test::kQuickDriver});
    CHECK(r.status == 1);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("cpus_per_task must be an integer from 1 to 4096"));
    CHECK_FALSE(fs::exists(dir + "/out/results.jsonl"));
}

TEST_CASE("a batch graded through Slurm matches the same batch graded locally", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-batch");
    // A crash and a timeout among them: they must end the same way on a node.
    const std::map<std::string, std::string> source = {
        {"good", "good"}, {"segfault", "segfault"}, {"loop", "loop"}, {"wrong", "wrong"}};
    std::string handins = make_handins(dir, source);

    auto local = test::run(grade_argv(handins, dir + "/local"));
    INFO(local.err);
    REQUIRE(local.status == 0);
    auto slurm = test::run(slurm_argv(handins, dir + "/slurm"), "", {"SLURM_CONF=" + cluster.conf()});
    INFO(slurm.err);
    REQUIRE(slurm.status == 0);
    CHECK_THAT(slurm.err, Catch::Contains("submitted 4 hand-ins as Slurm job array"));
    CHECK_THAT(slurm.err, Catch::Contains("running") && Catch::Contains("pending") && Catch::Contains("failed"));

    auto want = gradebook_statuses(test::read_file(dir + "/local/gradebook.csv"));
    auto got = gradebook_statuses(test::read_file(dir + "/slurm/gradebook.csv"));
    CHECK(want == std::map<std::string, std::string>{
                      {"good", "ok"}, {"segfault", "crashed"}, {"loop", "timeout"}, {"wrong", "wrong-result"}});
    CHECK(got == want);

    auto lr = records_by_id(dir + "/local/results.jsonl");
    auto sr = records_by_id(dir + "/slurm/results.jsonl");
    std::set<std::string> baseline_files;
    for (const auto& [id, r] : sr) {
        INFO(r.dump());
        // The same words for the same failure; the pixel values differ (every run's inputs are secret).
        static const std::regex pixel_values(R"(\{\d+,\d+,\d+\})");
        if (r["status"] != "ok")
            CHECK(std::regex_replace(r["reason"].get<std::string>(), pixel_values, "{...}") ==
                  std::regex_replace(lr[id]["reason"].get<std::string>(), pixel_values, "{...}"));
        CHECK(r["node"] == host());
        CHECK(r["baseline"] == "");  // scored beside the oracle in its own run, as in a local batch
        CHECK(fs::exists(dir + "/slurm/feedback/" + id + ".txt"));
        // Speedups within noise of the local ones (naive kernels: both near 1);
        // this shared machine swings by tens of percent, so only a loose band.
        for (const char* k : {"rotate_speedup", "smooth_speedup"}) {
            CHECK(r[k].is_null() == lr[id][k].is_null());
            if (r[k].is_null() || lr[id][k].is_null()) continue;
            double ratio = r[k].get<double>() / lr[id][k].get<double>();
            CHECK(ratio > 1.0 / 3);
            CHECK(ratio < 3.0);
        }
    }
    CHECK_THAT(test::read_file(dir + "/slurm/feedback/wrong.txt"), Catch::Contains("Rotate: Version"));

    json batch = json::parse(test::read_file(dir + "/slurm/batch.json"));
    CHECK(batch["scheduler"] == "slurm");
    REQUIRE(batch["baselines"].size() == 4);
    for (const auto& b : batch["baselines"]) {
        CHECK(b["node"] == host());
        CHECK_THAT(b["file"].get<std::string>(), Catch::Contains(dir + "/slurm/baselines/slurm-"));
        CHECK(fs::exists(b["file"].get<std::string>()));
        baseline_files.insert(b["file"].get<std::string>());
        CHECK(b["rotate_cpe"].contains("128"));
        CHECK(b.contains("outlier"));
    }
    CHECK(baseline_files.size() == 4);  // each task measured its own node's
    CHECK(batch["spread_percent"].contains("rotate"));
    CHECK(batch["outlier_nodes"].is_array());
    CHECK(batch["slurm_jobs"].size() == 1);

    // A rerun with nothing left to grade still writes the batch page, as a local batch does.
    fs::remove(dir + "/slurm/report.html");
    auto again = test::run(slurm_argv(handins, dir + "/slurm"), "", {"SLURM_CONF=" + cluster.conf()});
    INFO(again.err);
    CHECK(again.status == 0);
    CHECK(fs::exists(dir + "/slurm/report.html"));
}

TEST_CASE("a cancelled Slurm task is retried, then recorded as internal-error with Slurm's reason", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-retry");
    std::string handins = make_handins(dir, {{"a", "good"}, {"b", "forks"}, {"c", "wrong"}});
    std::string out = dir + "/out";
    auto argv = slurm_argv(handins, out);
    argv.insert(argv.end(), {"--array-limit", "1", "--slurm-retries", "1"});
    // Task 1 (b) is cancelled while it waits behind task 0; its resubmission is
    // cancelled too, which spends the one retry. scancel is what preemption and
    // an administrator look like from the grader's side.
    std::string script = "export SLURM_CONF=" + cluster.conf() + "; " + shell_line(argv) + " 2>" + dir + "/err & pid=$!\n" +
                         R"(
first=; for i in $(seq 600); do first=$(squeue -h -o %F -n perflab-grade | head -n 1); [ -n "$first" ] && break; sleep 0.1; done
[ -n "$first" ] || { kill $pid; echo "no job"; exit 1; }
scancel "${first}_1"
second=; for i in $(seq 600); do second=$(squeue -h -o %F -n perflab-grade | grep -vx "$first" | head -n 1); [ -n "$second" ] && break; sleep 0.1; done
[ -n "$second" ] || { kill $pid; echo "no resubmission"; exit 1; }
scancel "${second}_0"
wait $pid
)";
    auto r = test::sh(script);
    std::string err = test::read_file(dir + "/err");
    INFO(r.out << err);
    // b has no grade yet: the batch says so and exits 1.
    REQUIRE(r.status == 1);
    CHECK_THAT(err, Catch::Contains("1 hand-in ended internal-error"));
    CHECK_THAT(err, Catch::Contains("b: the Slurm task") && Catch::Contains("resubmitting (attempt 2 of 2)"));
    auto records = records_by_id(out + "/results.jsonl");
    REQUIRE(records.size() == 3);
    CHECK(records["a"]["status"] == "ok");
    CHECK(records["c"]["status"] == "wrong-result");
    CHECK(records["b"]["status"] == "internal-error");
    std::string reason = records["b"]["reason"];
    CHECK_THAT(reason, Catch::Contains("CANCELLED") && Catch::Contains("2 times") && Catch::Contains("scontrol"));
    CHECK_THAT(test::read_file(out + "/feedback/b.txt"), Catch::Contains("internal-error"));
    CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv"))["b"] == "internal-error");
}

TEST_CASE("a grader killed mid-batch resumes: live jobs are awaited, only hand-ins with no record are resubmitted",
          "[slurm]") {
    NEED_CLUSTER();
    const std::map<std::string, std::string> expected = {
        {"a-good", "ok"}, {"b-segv", "crashed"}, {"c-forks", "forbidden"}, {"d-wrong", "wrong-result"}};
    const std::map<std::string, std::string> source = {
        {"a-good", "good"}, {"b-segv", "segfault"}, {"c-forks", "forks"}, {"d-wrong", "wrong"}};
    const std::string env = "export SLURM_CONF=" + cluster.conf() + "; ";

    SECTION("killed while its job runs: the rerun waits for that job and submits nothing") {
        std::string dir = test::scratch_dir("slurm-resume-live");
        std::string out = dir + "/out";
        auto argv = slurm_argv(make_handins(dir, source), out);
        argv.insert(argv.end(), {"--array-limit", "1"});
        // Killed once its job array is submitted: state.json is written earlier too
        // (before the submission), and a kill then leaves no job to wait for.
        auto killed = test::sh(env + shell_line(argv) + " 2>/dev/null & pid=$!; "
                               "until grep -qs '\"job\"' " + out + "/slurm/state.json; do sleep 0.1; done; "
                               "kill -9 $pid; wait $pid; exit 0");
        REQUIRE(killed.status == 0);
        auto resumed = test::sh(env + shell_line(argv));
        INFO(resumed.err);
        REQUIRE(resumed.status == 0);
        CHECK_THAT(resumed.err, Catch::Contains("still queued or running: waiting for it"));
        CHECK_THAT(resumed.err, !Catch::Contains("submitted"));
        json state = json::parse(test::read_file(out + "/slurm/state.json"));
        CHECK(state["submissions"].size() == 1);
        int lines = 0;
        auto records = records_by_id(out + "/results.jsonl", &lines);
        CHECK(lines == int(expected.size()));
        CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv")) == expected);
    }

    SECTION("killed, and its job cancelled: the rerun submits exactly the hand-ins with no record") {
        std::string dir = test::scratch_dir("slurm-resume-dead");
        std::string out = dir + "/out";
        auto argv = slurm_argv(make_handins(dir, source), out);
        argv.insert(argv.end(), {"--array-limit", "1"});
        auto killed = test::sh(env + shell_line(argv) + " 2>/dev/null & pid=$!; "
                               "until [ \"$(wc -l < " + out + "/results.jsonl 2>/dev/null || echo 0)\" -ge 1 ]; do sleep 0.1; done; "
                               "kill -9 $pid; wait $pid; scancel -n perflab-grade; "
                               "while [ -n \"$(squeue -h -n perflab-grade)\" ]; do sleep 0.2; done; exit 0");
        REQUIRE(killed.status == 0);
        // Graded so far: committed records, and record files no one merged yet.
        std::set<std::string> graded;
        for (const auto& [id, r] : records_by_id(out + "/results.jsonl")) graded.insert(id);
        for (const auto& e : fs::directory_iterator(out + "/slurm/records")) graded.insert(e.path().stem().string());
        REQUIRE(graded.size() >= 1);
        REQUIRE(graded.size() < expected.size());

        auto resumed = test::sh(env + shell_line(argv));
        INFO(resumed.err);
        REQUIRE(resumed.status == 0);
        CHECK_THAT(resumed.err, Catch::Contains(fmt::format("{} of {} hand-ins already graded", graded.size(), expected.size())));
        json state = json::parse(test::read_file(out + "/slurm/state.json"));
        REQUIRE(state["submissions"].size() == 2);
        std::set<std::string> resubmitted;
        for (const auto& task : state["submissions"][1]["tasks"])
            for (const auto& id : task) resubmitted.insert(id.get<std::string>());
        std::set<std::string> missing;
        for (const auto& [id, s] : expected)
            if (!graded.count(id)) missing.insert(id);
        CHECK(resubmitted == missing);
        int lines = 0;
        records_by_id(out + "/results.jsonl", &lines);
        CHECK(lines == int(expected.size()));
        CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv")) == expected);
    }
}

TEST_CASE("a hand-in replaced after its task graded it, while the grader was dead, is regraded by the rerun", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-replaced");
    std::string handins = make_handins(dir, {{"a", "good"}, {"b", "wrong"}});
    std::string out = dir + "/out";
    auto argv = slurm_argv(handins, out);
    argv.insert(argv.end(), {"--array-limit", "1"});
    const std::string env = "export SLURM_CONF=" + cluster.conf() + "; ";
    // The grader dies once its array is submitted; the tasks grade on and leave
    // their record files for the rerun to commit.
    auto killed = test::sh(env + shell_line(argv) + " 2>/dev/null & pid=$!; "
                           "until grep -qs '\"job\"' " + out + "/slurm/state.json; do sleep 0.1; done; "
                           "kill -9 $pid; wait $pid; "
                           "while [ -n \"$(squeue -h -n perflab-grade)\" ]; do sleep 0.2; done; exit 0");
    REQUIRE(killed.status == 0);
    REQUIRE(fs::exists(out + "/slurm/records/b.json"));
    // The student hands in again: the wrong kernels become correct ones.
    test::write_file(handins + "/b.c", test::read_file(test::fixture_handin("good")));

    auto resumed = test::sh(env + shell_line(argv));
    INFO(resumed.err);
    REQUIRE(resumed.status == 0);
    CHECK_THAT(resumed.err, Catch::Contains("changed since graded: b"));
    int lines = 0;
    auto records = records_by_id(out + "/results.jsonl", &lines);
    CHECK(lines == 2);
    CHECK(records["a"]["status"] == "ok");
    CHECK(records["b"]["status"] == "ok");  // the file as it is now, not the one the task graded
    CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv"))["b"] == "ok");
}

TEST_CASE("batch.json names every hand-in graded on an outlier node, those graded after the last baseline too", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-outlier-node");
    std::string handins = make_handins(dir, {{"a", "good"}, {"b", "wrong"}});
    std::string out = dir + "/out";
    // This cluster has one node: a baseline summary far off the ones its tasks
    // measure, left as a task leaves one, makes that node the outlier.
    const json far = {{"64", 1e6}, {"128", 1e6}};
    test::write_file(out + "/slurm/baselines/0_0.json",
                     json{{"node", host()}, {"task", "0_0"}, {"file", out + "/baselines/slurm-0_0.toml"},
                          {"measured_on", ""}, {"rotate_cpe", far}, {"smooth_cpe", far}}.dump());
    auto argv = slurm_argv(handins, out);
    argv.insert(argv.end(), {"--array-limit", "1"});
    auto r = test::run(argv, "", {"SLURM_CONF=" + cluster.conf()});
    INFO(r.err);
    REQUIRE(r.status == 0);
    json batch = json::parse(test::read_file(out + "/batch.json"));
    REQUIRE(batch["outlier_nodes"] == json::array({host()}));
    CHECK(batch["baselines"].size() == 3);
    CHECK(batch["graded_on_outlier_nodes"] == json::array({"a", "b"}));
    // The batch page shows the baselines the two tasks measured, in task order.
    json page = test::embedded(test::read_file(out + "/report.html"), "perflab-batch");
    REQUIRE(page["baselines"].size() == 2);
    CHECK_THAT(page["baselines"][0]["file"].get<std::string>(), Catch::Matches("slurm-[0-9]+_0-.*\\.toml"));
    CHECK_THAT(page["baselines"][1]["file"].get<std::string>(), Catch::Matches("slurm-[0-9]+_1-.*\\.toml"));
    CHECK(page["baselines"][1]["after_handins"] == 0);  // each task measures before it grades
}

TEST_CASE("more hand-ins than the cluster's MaxArraySize: one line naming the limit and the --shard-size that fits", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-max-array");
    const std::string good = test::read_file(test::fixture_handin("good"));
    auto conf = test::sh("SLURM_CONF=" + cluster.conf() + " scontrol show config | sed -n 's/^MaxArraySize *= *//p'");
    const std::size_t most = std::stoul(conf.out);
    for (std::size_t i = 0; i <= most; ++i) test::write_file(fmt::format("{}/handins/s{:05}.c", dir, i), good);
    auto r = test::run(slurm_argv(dir + "/handins", dir + "/out"), "", {"SLURM_CONF=" + cluster.conf()});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains(fmt::format("MaxArraySize of {}", most)) && Catch::Contains("--shard-size 2"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(test::sh("SLURM_CONF=" + cluster.conf() + " squeue -h -n perflab-grade").out.empty());
}

TEST_CASE("a task Slurm cannot start (its node drained) is named with Slurm's reason, not just counted pending", "[slurm]") {
    NEED_CLUSTER();
    std::string dir = test::scratch_dir("slurm-drained");
    std::string handins = make_handins(dir, {{"a", "good"}});
    const std::string env = "export SLURM_CONF=" + cluster.conf() + "; ";
    const std::string node = "NodeName=" + host();
    REQUIRE(test::sh(env + "scontrol update " + node + " State=DRAIN Reason=maintenance").status == 0);
    // Killed after a few polls: the batch would wait for the node for ever.
    auto r = test::sh(env + shell_line(slurm_argv(handins, dir + "/out")) + " 2>" + dir + "/err & pid=$!; "
                      "for i in $(seq 300); do grep -qs 'keeps 1 task' " + dir + "/err && break; sleep 0.1; done; "
                      "kill -9 $pid; wait $pid; scancel -n perflab-grade; "
                      "while [ -n \"$(squeue -h -n perflab-grade)\" ]; do sleep 0.2; done; "
                      "scontrol update " + node + " State=RESUME");
    std::string err = test::read_file(dir + "/err");
    INFO(err);
    // Slurm's words for a drained node: ReqNodeNotAvail at first, a sentence later.
    CHECK_THAT(err, Catch::Contains("Slurm keeps 1 task of this batch pending: ") && Catch::Contains("sinfo -R") &&
                        (Catch::Contains("ReqNodeNotAvail") || Catch::Contains("DRAINED")));
    CHECK_THAT(test::sh(env + "sinfo -h -N -o %t").out, !Catch::Contains("drain"));  // the next tests need the node
}

TEST_CASE("a controller that does not answer scontrol is asked again, not taken for a job past MinJobAge", "[slurm]") {
    NEED_CLUSTER();
    auto down = grade_while_down(cluster, "slurm-scontrol-down", "scontrol", "*' show job '*",
                                 {"--array-limit", "1", "--slurm-retries", "0"}, "scontrol could not say");
    INFO(down.run.out << down.err);
    CHECK_THAT(down.err, Catch::Contains("scontrol could not say how Slurm job") &&
                             Catch::Contains("Unable to contact slurm controller") && Catch::Contains("asking again"));
    REQUIRE(down.records.size() == 2);
    CHECK(down.records["a"]["status"] == "ok");
    // Once the controller answers, the task's real end is what the record gives.
    CHECK(down.records["b"]["status"] == "internal-error");
    CHECK_THAT(down.records["b"]["reason"].get<std::string>(),
               Catch::Contains("CANCELLED") && !Catch::Contains("MinJobAge"));
}

TEST_CASE("sbatch failing on a resubmission is tried again, not blamed on --partition", "[slurm]") {
    NEED_CLUSTER();
    auto down = grade_while_down(cluster, "slurm-sbatch-down", "sbatch", "*",
                                 {"--array-limit", "1", "--slurm-retries", "1"}, "sbatch failed resubmitting");
    INFO(down.run.out << down.err);
    CHECK(down.run.status == 0);
    CHECK_THAT(down.err, Catch::Contains("sbatch failed resubmitting hand-ins") && !Catch::Contains("--partition"));
    REQUIRE(down.records.size() == 2);
    CHECK(down.records["a"]["status"] == "ok");
    CHECK(down.records["b"]["status"] == "ok");
}
