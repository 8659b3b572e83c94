// ./grader end to end on fixture hand-ins (each one broken, slow or cheating in
// its own way), plus the units whose failure would lose or forge a grade.
#include <catch2/catch.hpp>

#include <regex>
#include <csignal>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <thread>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "grader/discovery.hpp"
#include "grader/gradebook.hpp"
#include "grader_outputs.hpp"
#include "harness.hpp"
#include "grader/platforms.hpp"
#include "grader/results_store.hpp"
#include "driver/core/scoring.hpp"
#include "grader/static_checks.hpp"
#include "grader/trials.hpp"
#include "grader/build.hpp"
#include "grader/layout.hpp"
#include "grader/oracle_regimes.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using namespace perflab::grader;
using nlohmann::json;
using perflab::test::gradebook_statuses;
using perflab::test::kQuickDriver;
using perflab::test::records_by_id;
using test::repo;

namespace {


std::string grader_bin() { return repo("grader"); }

// No fixture is meant to reach the wall-clock limit (a loop meets the per-call one, a
// constructor the host's start); 8 s was reached by a hand-in killed at its first
// system call, on a machine with ten runnable processes on its two CPUs.
std::vector<std::string> grade_argv(const std::string& handins, const std::string& out) {
    return {grader_bin(), "grade", handins, "--out", out, "--trials", "1", "--driver-args", kQuickDriver,
            "--wall-timeout", "30"};
}

std::string fixture(const std::string& name) { return test::fixture_handin(name); }

std::vector<std::string> fixture_names() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(repo("tests/fixtures/handins")))
        if (e.path().extension() == ".c") names.push_back(e.path().stem().string());
    return names;
}


Record sample_record() {
    Record r;
    r.id = "alice";
    r.status = Status::wrong_result;
    r.reason = "rotate(): dimension 96: 1 wrong pixel, \"quoted\"";
    r.smooth_speedup = 2.0;
    r.smooth_points = 20;
    r.total = 20;
    r.trials = 1;
    return r;
}

}  // namespace

TEST_CASE("trials agree within 3% without steps, else the grader runs more", "[grader]") {
    using perflab::grader::grade_settled;
    const auto continuous = perflab::default_policy().rotate;
    CHECK(grade_settled(continuous, {}));
    CHECK(grade_settled(continuous, {1.7}));
    CHECK(grade_settled(continuous, {2.00, 2.05, 2.03}));        // 2.5% apart
    CHECK_FALSE(grade_settled(continuous, {2.00, 2.07, 2.03}));  // 3.5% apart: one more trial
    CHECK_FALSE(grade_settled(continuous, {0.0, 1.0}));          // a zero is no measurement to agree with
}

TEST_CASE("with steps, trials settle a grade unless their median's interval holds a step's edge", "[grader]") {
    using perflab::grader::enough_trials;
    using perflab::grader::grade_settled;
    // 5-point steps on 1.0 -> 3.5: an edge every 0.25 of speedup (1.25, 1.50, ...).
    const auto stepped = perflab::parse_policy("[rotate]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\nstep = 5\n"
                                               "[smooth]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\nstep = 5\n",
                                               "stepped.toml");
    // 10% apart, all well inside [1.50, 1.75): the noise cannot change the grade.
    CHECK(grade_settled(stepped.rotate, {1.56, 1.62, 1.69}));
    // 2% apart, but the median sits on 1.50: which side it is on is not known.
    CHECK_FALSE(grade_settled(stepped.rotate, {1.49, 1.505, 1.52}));
    // More trials narrow the median's interval until it clears the edge.
    CHECK(grade_settled(stepped.rotate, {1.52, 1.53, 1.54, 1.53, 1.52, 1.54, 1.53, 1.53, 1.54}));
    // Below the curve every speedup earns 0: nothing to settle.
    CHECK(grade_settled(stepped.rotate, {0.7, 0.9, 1.1}));

    const perflab::grader::TrialBudget budget{3, 9};
    const std::vector<double> settled{1.56, 1.62, 1.69}, straddling{1.49, 1.505, 1.52};
    CHECK_FALSE(enough_trials(stepped, {1.6}, {1.6}, 1, budget));         // fewer than asked for
    CHECK(enough_trials(stepped, settled, settled, 3, budget));
    CHECK_FALSE(enough_trials(stepped, settled, straddling, 3, budget));  // either kernel keeps it going
    CHECK(enough_trials(stepped, straddling, straddling, 9, budget));     // never past the most
    // A failing kernel has no speedups: only the other decides.
    CHECK(enough_trials(stepped, {}, settled, 3, budget));
}

TEST_CASE("a stepped policy makes the grader re-measure a hand-in whose grade sits on a step's edge", "[grader]") {
    const std::string dir = test::scratch_dir("grader-steps");
    fs::create_directories(dir + "/handins");
    fs::copy_file(fixture("good"), dir + "/handins/alice.c");
    // Edges every 0.0004 of speedup: three real runs never agree that closely, so
    // the median's interval always holds one and the grader runs up to --max-trials.
    test::write_file(dir + "/fine.toml", "[rotate]\nmax_points = 50\ncurve = [[0, 0], [2, 50]]\nstep = 0.01\n"
                                         "[smooth]\nmax_points = 50\ncurve = [[0, 0], [2, 50]]\nstep = 0.01\n");
    // One edge, at a speedup of 50: nothing to settle, the three trials asked for do.
    test::write_file(dir + "/coarse.toml", "[rotate]\nmax_points = 50\ncurve = [[0, 0], [100, 50]]\nstep = 25\n"
                                           "[smooth]\nmax_points = 50\ncurve = [[0, 0], [100, 50]]\nstep = 25\n");
    for (const char* policy : {"fine", "coarse"}) {
        const std::string out = dir + "/out-" + policy;
        auto r = test::run({grader_bin(), "grade", dir + "/handins", "--out", out, "--trials", "3", "--max-trials", "4",
                            "--policy", dir + "/" + policy + ".toml", "--driver-args", kQuickDriver});
        INFO(policy << ": " << r.err);
        REQUIRE(r.status == 0);
        const json alice = records_by_id(out + "/results.jsonl").at("alice");
        CHECK(alice["status"] == "ok");
        const std::string reason = alice["reason"].get<std::string>();
        INFO(reason);
        if (std::string(policy) == "fine") {
            CHECK(alice["trials"] == 4);
            CHECK_THAT(reason, Catch::Contains("rotate within the trials' noise of a grade's edge; smooth within"));
            // Points on the 0.01 grid, never the curve's unrounded value.
            const double points = alice["rotate_points"].get<double>();
            CHECK(std::abs(points * 100 - std::round(points * 100)) < 1e-6);
        } else {
            CHECK(alice["trials"] == 3);
            CHECK_THAT(reason, !Catch::Contains("edge"));
            CHECK(alice["rotate_points"] == 0.0);  // 0.5 points on the curve: below the first step
        }
    }
    auto bad = test::run({grader_bin(), "grade", dir + "/handins", "--out", dir + "/bad", "--trials", "3",
                          "--max-trials", "2"});
    CHECK(bad.status != 0);
    CHECK_THAT(bad.err, Catch::Contains("--max-trials 2 is below --trials 3"));
}

TEST_CASE("static checks refuse system calls, counters and what could reach the report pipe", "[grader]") {
    CHECK(symbol_allowed("memcpy"));
    CHECK(symbol_allowed("printf"));
    for (const char* bad : {"fopen", "fdopen", "freopen", "dprintf", "write", "open", "fork", "pthread_create", "dlopen",
                            "mmap", "mprotect", "setjmp", "signal", "socket", "clock_gettime", "syscall", "atexit"})
        CHECK_FALSE(symbol_allowed(bad));
    const std::string clean = "0000000000000000 <rotate>:\n   0:\tmov    %edi,%eax\n   2:\tret\n";
    CHECK_FALSE(forbidden_instruction_in(clean));
    for (const char* insn : {"syscall", "sysenter", "rdtsc", "rdtscp", "rdpmc", "int    $0x80"}) {
        auto found = forbidden_instruction_in("0000000000000010 <smooth>:\n  10:\t" + std::string(insn) + "\n");
        REQUIRE(found);
        CHECK_THAT(*found, Catch::Contains("smooth"));
    }
    CHECK_FALSE(forbidden_instruction_in("  10:\tint    $0x3\n"));
}

TEST_CASE("the static checks scan a long listing in little memory and still find what follows it", "[grader]") {
    // 2M one-byte movsb list as some 78 MB of objdump text ahead of the syscall.
    const std::string dir = test::scratch_dir("grader-long-listing");
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    test::write_file(dir + "/long.c", "__asm__(\".text\\nlong_padding: .fill 2000000, 1, 0xa4\\n"
                                      "after_padding: syscall\\n ret\\n\");\n");
    REQUIRE(test::sh("gcc -c '" + dir + "/long.c' -o '" + dir + "/long.o' && chmod 644 '" + dir + "/long.o'").status == 0);
    const std::string object = dir + "/long.o";

    // A grader allowed 32 MiB more than it has now: a listing held in memory does not fit.
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::ifstream status("/proc/self/status");
        rlim_t mapped_kib = 0;
        for (std::string line; std::getline(status, line);)
            if (line.rfind("VmSize:", 0) == 0) mapped_kib = std::stoull(line.substr(7));
        struct rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = (mapped_kib << 10) + (32u << 20);
        if (mapped_kib == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
        try {
            auto found = forbidden_instruction(object);
            _exit(found && found->find("'syscall' instruction in after_padding") != std::string::npos ? 0 : 1);
        } catch (const std::bad_alloc&) {
            _exit(2);
        } catch (...) {
            _exit(4);
        }
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    INFO("0: found; 1: missed; 2: out of memory; 3: no limit set; 4: another error");
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("results.jsonl drops a torn last line and the next append starts a line of its own", "[grader]") {
    std::string dir = test::scratch_dir("grader-store");
    std::string path = dir + "/results.jsonl";
    {
        ResultsStore store(path);
        Record a = sample_record(), b = sample_record();
        b.id = "bob";
        store.append(a);
        store.append(b);
    }
    std::string whole = test::read_file(path);
    test::write_file(path, whole + R"({"id": "carol", "status": "o)");  // killed mid-write
    ResultsStore store(path);
    CHECK(store.records().size() == 2);
    CHECK(test::read_file(path) == whole);
    Record c = sample_record();
    c.id = "carol";
    store.append(c);
    int lines = 0;
    auto records = records_by_id(path, &lines);
    CHECK(lines == 3);
    CHECK(records["alice"]["reason"] == sample_record().reason);

    store.forget({"alice"});
    CHECK_FALSE(ResultsStore(path).has("alice"));
    CHECK(ResultsStore(path).has("carol"));
}

TEST_CASE("gradebook.csv quotes reasons and leaves unmeasured speedups empty", "[grader]") {
    std::string csv = gradebook_csv({sample_record()});
    CHECK(csv == "id,status,rotate_speedup,smooth_speedup,rotate_points,smooth_points,total,basis,reason\n"
                 "alice,wrong-result,,2.00,0.0,20.0,20.0,timing,\"rotate(): dimension 96: 1 wrong pixel, \"\"quoted\"\"\"\n");
}

TEST_CASE("Autolab's last line and Gradescope's results.json follow their schemas", "[grader]") {
    Record r = sample_record();
    json autolab = json::parse(autolab_line(r));
    CHECK(autolab["scores"]["rotate"] == 0.0);
    CHECK(autolab["scores"]["smooth"] == 20.0);
    CHECK(autolab["scoreboard"] == json::array({20.0, 0.0, 2.0}));

    json gs = gradescope_results(r, default_policy(), "feedback text");
    CHECK(gs["score"] == 20.0);
    REQUIRE(gs["tests"].size() == 2);
    for (const auto& t : gs["tests"]) {
        CHECK(t["max_score"] == 50.0);
        CHECK(t["visibility"] == "visible");
        CHECK(t.contains("name"));
        CHECK(t.contains("output"));
    }
    CHECK(gs["tests"][1]["score"] == 20.0);
    CHECK(gs["leaderboard"][0]["value"] == 20.0);
}

TEST_CASE("hand-ins are found in every layout and unusable ones say why", "[grader]") {
    std::string dir = test::scratch_dir("grader-discovery");
    std::string good = test::read_file(fixture("good"));
    test::write_file(dir + "/alice.c", good);
    test::write_file(dir + "/bob-kernels.c", good);
    test::write_file(dir + "/carol/handin/kernels.c", good);
    test::write_file(dir + "/README.txt", "not a hand-in");
    fs::create_directories(dir + "/erin");
    test::write_file(dir + "/src/dave/kernels.c", good);
    test::write_file(dir + "/src/two/a/kernels.c", good);
    test::write_file(dir + "/src/two/b/kernels.c", good);
    REQUIRE(test::sh("cd " + dir + "/src/dave && tar -czf ../../dave.tar.gz kernels.c && cd ../two && "
                     "tar -cf ../../gina.tar a b && cd " + dir + "/src && tar -cf ../frank.tar -P ../src/dave/kernels.c && "
                     "rm -rf " + dir + "/src")
                .status == 0);
    test::write_file(dir + "/hank.c", good);
    test::write_file(dir + "/hank.tar", "");
    // The handout's `make handin` packs team42-kernels.c; stored under the student's ID.
    test::write_file(dir + "/pack/team42-kernels.c", good);
    REQUIRE(test::sh("tar -cf " + dir + "/ivy.tar -C " + dir + "/pack team42-kernels.c && rm -rf " + dir + "/pack").status == 0);

    // A kernels.c that is a symbolic link to a file of the grading host.
    REQUIRE(test::sh("mkdir -p " + dir + "/link && ln -s /etc/passwd " + dir + "/link/kernels.c && tar -cf " + dir +
                     "/jack.tar -C " + dir + "/link kernels.c && rm -rf " + dir + "/link").status == 0);

    auto handins = discover_handins(dir);
    std::map<std::string, Handin> by_id;
    for (const auto& h : handins) by_id[h.id] = h;
    CHECK(by_id.size() == 10);  // alice bob carol dave erin frank gina hank ivy jack
    auto extract = [&](const std::string& id) -> std::string {
        std::string dest = dir + "/out-" + id + ".c";
        try {
            extract_kernels(by_id.at(id), dest);
        } catch (const HandinError& e) {
            return e.what();
        }
        return test::read_file(dest) == good ? "same" : "different";
    };
    for (const char* id : {"alice", "bob", "carol", "dave", "ivy"}) CHECK(extract(id) == "same");
    CHECK_THAT(extract("erin"), Catch::Contains("no kernels.c"));
    CHECK_THAT(extract("frank"), Catch::Contains("outside the archive"));
    CHECK_THAT(extract("gina"), Catch::Contains("2 kernels files"));
    CHECK_THAT(extract("hank"), Catch::Contains("two hand-ins"));
    CHECK_THAT(extract("jack"), Catch::Contains("not a regular file"));
}

TEST_CASE("every fixture hand-in ends in its own status and reason, and cheating earns nothing", "[grader]") {
    std::string dir = test::scratch_dir("grader-batch");
    std::string handins = dir + "/handins", out = dir + "/out";
    fs::create_directories(handins);
    for (const auto& name : fixture_names()) fs::copy_file(fixture(name), handins + "/" + name + ".c");
    // One hand-in arrives as an Autolab-style tarball.
    REQUIRE(test::sh("mkdir -p " + dir + "/t && cp " + fixture("good") + " " + dir + "/t/kernels.c && tar -czf " + handins +
                     "/tarred.tar.gz -C " + dir + "/t kernels.c")
                .status == 0);

    auto result = test::run(grade_argv(handins, out));
    INFO(result.err);
    REQUIRE(result.status == 0);
    auto records = records_by_id(out + "/results.jsonl");

    struct Expect {
        const char* status;
        std::vector<const char*> reason;
    };
    const std::map<std::string, Expect> expected = {
        {"good", {"ok", {}}},
        {"tarred", {"ok", {}}},
        {"fakescore", {"ok", {}}},
        {"wrong", {"wrong-result", {"rotate", "dimension", "dst[2][3]"}}},
        {"writesrc", {"wrong-result", {"rotate", "src"}}},
        {"compileerror", {"compile-error", {"kernels.c:", "error", "';'"}}},
        {"nosmooth", {"compile-error", {"'smooth'"}}},
        {"segfault", {"crashed", {"smooth", "SIGSEGV", "dimension"}}},
        {"loop", {"timeout", {"rotate"}}},
        {"constructor", {"timeout", {"did not finish registering", "constructors"}}},
        {"hugealloc", {"out-of-memory", {"malloc"}}},
        {"forks", {"forbidden", {"fork"}}},
        {"threads", {"forbidden", {"pthread_create"}}},
        {"fakerecord", {"forbidden", {"dprintf"}}},
        {"fakefile", {"forbidden", {"fopen"}}},
        {"syscall", {"forbidden", {"syscall", "rotate"}}},
    };
    CHECK(records.size() == expected.size());
    for (const auto& [id, e] : expected) {
        INFO(id);
        REQUIRE(records.count(id));
        const json& r = records[id];
        INFO(r.dump());
        CHECK(r["status"] == e.status);
        for (const char* part : e.reason) CHECK_THAT(r["reason"].get<std::string>(), Catch::Contains(part));
        CHECK(fs::exists(out + "/feedback/" + id + ".txt"));
        if (std::string(e.status) != "ok") CHECK_FALSE(r["reason"].get<std::string>().empty());
        if (std::string(e.status) == "ok") {
            // Naive kernels: the real speedup is near 1, nowhere near the forged 99.9.
            CHECK(r["rotate_speedup"].get<double>() > 0);
            CHECK(r["rotate_speedup"].get<double>() < 20);
            CHECK(r["smooth_speedup"].get<double>() < 20);
        } else {
            CHECK(r["total"].get<double>() <= 50);
        }
    }
    // Forbidden and uncompilable hand-ins never ran, so they earn nothing at all.
    for (const char* id : {"forks", "fakerecord", "syscall", "compileerror", "constructor"})
        CHECK(records[id]["total"] == 0.0);
    // A kernel whose allocation the limit refused earns nothing; only its host ended.
    CHECK(records["hugealloc"]["rotate_points"] == 0.0);
    // A wrong rotate scores 0 for rotate whatever its speed.
    CHECK(records["wrong"]["rotate_points"] == 0.0);
    CHECK(records["wrong"]["rotate_speedup"].is_null());

    auto statuses = gradebook_statuses(test::read_file(out + "/gradebook.csv"));
    for (const auto& [id, e] : expected) CHECK(statuses[id] == e.status);
    CHECK_THAT(test::read_file(out + "/feedback/wrong.txt"), Catch::Contains("Rotate: Version"));
    // Feedback a student can use: paths relative to the hand-in (the compiler's
    // messages start "kernels.c:"), none of the grader's, and each trial's speedup.
    for (const auto& [id, e] : expected) {
        const std::string text = test::read_file(out + "/feedback/" + id + ".txt");
        INFO(id << ":\n" << text);
        CHECK(text.find("/tmp/") == std::string::npos);
        CHECK(text.find("--max-samples") == std::string::npos);
    }
    CHECK_THAT(test::read_file(out + "/feedback/compileerror.txt"), Catch::Contains("\nkernels.c:"));
    CHECK_THAT(test::read_file(out + "/feedback/good.txt"), Catch::Contains("trial speedups: rotate "));
    json batch = json::parse(test::read_file(out + "/batch.json"));
    // By default each run timed the oracle beside its own kernels: no batch baseline.
    CHECK(batch["baseline"] == "interleaved");
    CHECK(batch["baselines"].empty());
    CHECK_FALSE(fs::exists(out + "/baselines"));
    CHECK(records["good"]["baseline"] == "");
}

TEST_CASE("a grader killed mid-batch finishes on rerun with each hand-in graded once", "[grader]") {
    std::string dir = test::scratch_dir("grader-resume");
    std::string handins = dir + "/handins", out = dir + "/out";
    const std::map<std::string, std::string> expected = {
        {"a-good", "ok"}, {"b-wrong", "wrong-result"}, {"c-forks", "forbidden"}, {"d-segv", "crashed"}, {"e-good", "ok"}};
    const std::map<std::string, std::string> source = {
        {"a-good", "good"}, {"b-wrong", "wrong"}, {"c-forks", "forks"}, {"d-segv", "segfault"}, {"e-good", "good"}};
    for (const auto& [id, name] : source) test::write_file(handins + "/" + id + ".c", test::read_file(fixture(name)));
    // A fixed baseline: both runs judge against the same CPEs.
    auto calibrated = test::run({repo("driver"), "--host", repo("build/solutions-host"), "--calibrate", "--dims", "64,128",
                                 "--max-samples", "5"});
    REQUIRE(calibrated.status == 0);
    test::write_file(dir + "/baseline.toml", calibrated.out);

    std::string cmd;
    for (const auto& a : grade_argv(handins, out)) cmd += "'" + a + "' ";
    cmd += "--baseline " + dir + "/baseline.toml";
    auto killed = test::sh(cmd + " 2>/dev/null & pid=$!; "
                           "until [ \"$(wc -l < " + out + "/results.jsonl 2>/dev/null || echo 0)\" -ge 2 ]; do sleep 0.1; done; "
                           "kill -9 $pid; wait $pid; exit 0");
    REQUIRE(killed.status == 0);
    int lines_after_kill = 0;
    records_by_id(out + "/results.jsonl", &lines_after_kill);
    CHECK(lines_after_kill >= 2);
    CHECK(lines_after_kill < int(expected.size()));
    // Simulate the worst instant too: killed in the middle of a record.
    test::write_file(out + "/results.jsonl", test::read_file(out + "/results.jsonl") + R"({"id": "e-good", "sta)");

    auto resumed = test::sh(cmd);
    INFO(resumed.err);
    REQUIRE(resumed.status == 0);
    CHECK_THAT(resumed.err, Catch::Contains(fmt::format("{} of {} hand-ins already graded", lines_after_kill, expected.size())));
    int lines = 0;
    auto records = records_by_id(out + "/results.jsonl", &lines);
    CHECK(lines == int(expected.size()));
    for (const auto& [id, status] : expected) CHECK(records[id]["status"] == status);
    CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv")) == expected);
}

TEST_CASE("autolab and gradescope commands grade one hand-in", "[grader]") {
    std::string dir = test::scratch_dir("grader-platforms");
    auto autolab = test::run({grader_bin(), "autolab", fixture("wrong"), "--trials", "1", "--driver-args", kQuickDriver});
    INFO(autolab.err);
    REQUIRE(autolab.status == 0);
    std::string last = autolab.out.substr(autolab.out.rfind('\n', autolab.out.size() - 2) + 1);
    json line = json::parse(last);
    CHECK(line["scores"]["rotate"] == 0.0);
    CHECK(line["scores"].contains("smooth"));
    CHECK(line["scoreboard"].size() == 3);
    CHECK_THAT(autolab.out, Catch::Contains("wrong-result"));

    auto gs = test::run({grader_bin(), "gradescope", "--submission", fixture("forks"), "--results",
                         dir + "/results/results.json", "--trials", "1", "--driver-args", kQuickDriver});
    INFO(gs.err);
    REQUIRE(gs.status == 0);
    json results = json::parse(test::read_file(dir + "/results/results.json"));
    CHECK(results["score"] == 0.0);
    CHECK(results["tests"].size() == 2);
    CHECK_THAT(results["tests"][0]["output"].get<std::string>(), Catch::Contains("fork"));
}

TEST_CASE("calibrate writes a policy with full marks at the reference speedups", "[grader]") {
    std::string dir = test::scratch_dir("grader-calibrate");
    // 1024 gives the reference rotate its most headroom over naive on these caches; on a
    // loaded VM its margin can still vanish, and then calibrate must refuse, not write a
    // curve that cannot rise from 1.0. Two attempts before the refusal is accepted.
    test::CommandResult r;
    for (int attempt = 0; attempt < 2; ++attempt) {
        r = test::run({grader_bin(), "calibrate", "--out", dir + "/policy.toml", "--driver-args",
                       "--dims 1024 --max-samples 10"});
        if (r.status == 0) break;
    }
    INFO(r.err);
    if (r.status != 0) {
        CHECK_THAT(r.err, Catch::Contains("a reference variant reached only speedup") &&
                              Catch::Contains("calibrate on a quieter machine"));
        CHECK_FALSE(std::filesystem::exists(dir + "/policy.toml"));
        WARN("the reference did not beat naive here twice; only the refusal was checked");
        return;
    }
    ScoringPolicy p = load_policy(dir + "/policy.toml");
    CHECK(p.rotate.max_points == 50);
    CHECK(p.rotate.points(1.0) == 0);
    CHECK(p.rotate.points(p.rotate.full_marks_speedup()) == 50);
    CHECK(p.rotate.full_marks_speedup() > 1.0);
    CHECK(p.smooth.full_marks_speedup() > 1.0);
    // What it says it wrote is what it wrote (to the two decimals it prints).
    std::smatch said;
    const std::string text = r.err + r.out;
    REQUIRE(std::regex_search(text, said, std::regex("rotate at speedup ([0-9.]+)")));
    CHECK(std::stod(said[1]) == Approx(p.rotate.full_marks_speedup()).margin(0.006));
}

// ---------------------------------------------------------------------------------
// Hostile hand-ins (tests/fixtures/hostile/): one real attempt per attack class,
// graded in one batch with two honest controls. The trusted driver runs outside the
// sandbox; each hand-in's code runs only in its kernel host inside it (docs/grader.md).

namespace {

// A TCP listener on the loopback: any connection is a sandbox with a network.
struct Listener {
    int fd = -1;
    int port = 0;
    std::atomic<int> connections{0};
    std::atomic<bool> stop{false};
    std::thread thread;
    Listener() {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(listen(fd, 8) == 0);
        socklen_t len = sizeof a;
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        thread = std::thread([this] {
            while (!stop) {
                pollfd p{fd, POLLIN, 0};
                if (poll(&p, 1, 100) > 0) {
                    int c = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
                    if (c >= 0) {
                        ++connections;
                        close(c);
                    }
                }
            }
        });
    }
    ~Listener() {
        stop = true;
        thread.join();
        close(fd);
    }
};

std::string substitute(std::string text, const std::map<std::string, std::string>& values) {
    for (const auto& [key, value] : values)
        for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
            text.replace(at, key.size(), value);
    return text;
}

// Processes anywhere on the machine whose command line holds `needle`.
int processes_with(const std::string& needle) {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(getpid())) continue;
        std::ifstream in(e.path() / "cmdline", std::ios::binary);
        std::string cmdline((std::istreambuf_iterator<char>(in)), {});
        if (cmdline.find(needle) != std::string::npos) ++n;
    }
    return n;
}

// Every byte the grader wrote, to look for secrets in.
std::string everything_under(const std::string& dir) {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) all += test::read_file(e.path().string());
    return all;
}

}  // namespace

TEST_CASE("hostile hand-ins earn nothing, reach nothing and leave nothing behind", "[grader][hostile]") {
    std::string dir = test::scratch_dir("grader-hostile");
    const std::string handins = dir + "/handins", out = dir + "/out", alone = dir + "/alone", out_alone = dir + "/out-alone";
    for (const auto& d : {handins, alone}) fs::create_directories(d);
    Listener listener;

    // Secrets a hostile hand-in must never see, and a file outside that must not change.
    const std::string token = fmt::format("{}-{}", getpid(), std::time(nullptr));
    const std::string instructor_secret = "SECRET-INSTRUCTOR-" + token, handin_secret = "SECRET-HANDIN-" + token;
    test::write_file(dir + "/instructor/solutions.c", "/* " + instructor_secret + " */\n");
    test::write_file(dir + "/canary.txt", "canary " + token + "\n");
    const auto canary_time = fs::last_write_time(dir + "/canary.txt");

    // A fixed baseline, and a policy that pays 10 points for any correct kernel below a
    // speedup of 5 (no naive kernel gets near it) and 50 from 6: scores are exact, no timing.
    auto calibrated = test::run({repo("driver"), "--host", repo("build/solutions-host"), "--calibrate", "--dims", "64,128",
                                 "--max-samples", "5"});
    REQUIRE(calibrated.status == 0);
    test::write_file(dir + "/baseline.toml", calibrated.out);
    test::write_file(dir + "/policy.toml", "[rotate]\nmax_points = 50\ncurve = [[5.0, 10], [6.0, 50]]\n\n"
                                           "[smooth]\nmax_points = 50\ncurve = [[5.0, 10], [6.0, 50]]\n");
    const double earned = 20;  // two correct kernels

    // The honest controls: one plain file (carrying a secret another hand-in goes for), one tarball.
    std::string good = test::read_file(fixture("good"));
    for (const auto& d : {handins, alone}) {
        test::write_file(d + "/control_a.c", good + "/* " + handin_secret + " */\n");
        REQUIRE(test::sh("mkdir -p " + dir + "/t && cp " + fixture("good") + " " + dir + "/t/kernels.c && tar -czf " + d +
                         "/control_b.tar.gz -C " + dir + "/t kernels.c").status == 0);
    }
    // A member named like a tar option: `tar -xOf ARCHIVE MEMBER` would run `touch`.
    REQUIRE(test::sh("cd " + dir + "/t && tar -cf " + handins + "/tar_option.tar "
                     "--transform='s|^kernels.c$|--to-command=touch perflab-pwned-kernels.c|' kernels.c").status == 0);

    const std::map<std::string, std::string> values = {
        {"@OUT_DIR@", out},        {"@INSTRUCTOR_SECRET@", dir + "/instructor/solutions.c"},
        {"@HANDINS_DIR@", handins}, {"@OTHER_HANDIN@", handins + "/control_a.c"},
        {"@BASELINE@", dir + "/baseline.toml"}, {"@PORT@", std::to_string(listener.port)},
        {"HOSTILE_GADGET\n", test::read_file(repo("tests/fixtures/hostile/gadget.inc"))},
        {"HOSTILE_CONTROL\n", test::read_file(repo("tests/fixtures/hostile/control_block.inc"))},
        {"HANDIN_COMMON\n", test::read_file(repo("tests/fixtures/handins/common.inc"))},
        {"@ESC@", "\x1b"}, {"@BEL@", "\x07"}, {"@CR@", "\r"},
    };
    // What a fixture must get, where its header says ("grader expects: status S, N points").
    std::map<std::string, std::pair<std::string, double>> stated;
    std::vector<std::string> hostile;
    for (const auto& e : fs::directory_iterator(repo("tests/fixtures/hostile")))
        if (e.path().extension() == ".c") {
            hostile.push_back(e.path().stem().string());
            const std::string text = test::read_file(e.path().string());
            std::smatch expects;
            if (std::regex_search(text, expects, std::regex(R"(grader expects: status ([a-z-]+), ([0-9.]+) points)")))
                stated[hostile.back()] = {expects[1], std::stod(expects[2])};
            test::write_file(handins + "/" + hostile.back() + ".c", substitute(text, values));
        }
    REQUIRE(hostile.size() >= 15);
    REQUIRE(stated.size() >= 6);
    hostile.push_back("tar_option");
    // A GNU long-name header bomb: 80 MiB of "././@LongLink" headers before kernels.c
    // gzip to a few hundred KiB, and libarchive's tar reader takes a chain of them in
    // one call: the grader inflated 3.9 GiB of them, uncounted, from a 4.2 MB upload.
    {
        std::string tar;
        auto header = [&](const std::string& name, char type, std::size_t size) {
            std::string h(512, '\0');
            h.replace(0, name.size(), name);
            h.replace(100, 7, "0000644");
            h.replace(108, 7, "0000000");
            h.replace(116, 7, "0000000");
            h.replace(124, 11, fmt::format("{:011o}", size));
            h.replace(136, 11, "00000000000");
            h[156] = type;
            h.replace(257, 8, std::string("ustar  \0", 8));
            h.replace(148, 8, "        ");
            unsigned sum = 0;
            for (unsigned char c : h) sum += c;
            h.replace(148, 7, fmt::format("{:06o}", sum) + '\0');
            tar += h;
        };
        const std::size_t name_bytes = 1 << 20;
        for (int i = 0; i < 80; ++i) {
            header("././@LongLink", 'L', name_bytes);
            tar += std::string(name_bytes, 'a');  // a multiple of 512: no padding
        }
        header("kernels.c", '0', good.size());
        tar += good + std::string((512 - good.size() % 512) % 512, '\0') + std::string(1024, '\0');
        test::write_file(dir + "/bomb.tar", tar);
        REQUIRE(test::sh("gzip -c " + dir + "/bomb.tar > " + handins + "/tar_header_bomb.tgz && rm " + dir + "/bomb.tar")
                    .status == 0);
        hostile.push_back("tar_header_bomb");
        stated["tar_header_bomb"] = {"unusable", 0};
    }

    auto grade = [&](const std::string& in, const std::string& to) {
        // The grader's work directories under `dir` too, so a leftover process shows there.
        std::string cmd = "mkdir -p " + dir + "/work && cd " + dir + " && TMPDIR=" + dir + "/work timeout 900 ";
        for (const auto& a : grade_argv(in, to)) cmd += "'" + a + "' ";
        return test::sh(cmd + "--baseline " + dir + "/baseline.toml --policy " + dir + "/policy.toml");
    };
    auto batch = grade(handins, out);
    INFO(batch.err);
    REQUIRE(batch.status != 124);  // finished within its limits (timeout(1) says 124)
    auto records = records_by_id(out + "/results.jsonl");
    // No hostile hand-in passes for the grader's own failure (exit 1, regraded on
    // every rerun): a host that dies taking its images (stack_walk) fails its variant.
    for (const auto& [id, r] : records) {
        INFO(id << ": " << r["reason"]);
        CHECK(r["status"] != "internal-error");
    }
    REQUIRE(batch.status == 0);

    // One record per hand-in: nothing appended from inside.
    CHECK(records.size() == hostile.size() + 2);
    CHECK(gradebook_statuses(test::read_file(out + "/gradebook.csv")).size() == hostile.size() + 2);

    // No hand-in earns more than its naive kernels earn. A kernel that did not run cleanly
    // earns nothing; the other keeps what its own work earned (docs/grader.md, Scoring),
    // so stack_walk, whose rotate may walk off its stack and crash, keeps its smooth's points.
    for (const auto& id : hostile) {
        INFO(id << ": " << records[id].dump());
        REQUIRE(records.count(id));
        const auto& r = records[id];
        CHECK(r["total"].get<double>() <= earned);
        for (const char* kernel : {"rotate", "smooth"}) {
            INFO(kernel);
            if (r[std::string(kernel) + "_speedup"].is_null()) CHECK(r[std::string(kernel) + "_points"].get<double>() == 0.0);
        }
        CHECK(r["total"].get<double>() == r["rotate_points"].get<double>() + r["smooth_points"].get<double>());
    }
    const std::map<std::string, std::string> expected = {
        {"include_shadow", "compile-error"}, {"incbin_secret", "compile-error"}, {"include_devzero", "compile-error"},
        {"daemon", "forbidden"},             {"setns_net", "forbidden"},         {"setpgid_sleep", "forbidden"},
        // The host quits without running destructors; the driver never waits for one.
        {"spin_destructor", "ok"},           {"tar_option", "ok"},
        // A host that cannot map its images, or refuses a call, fails the hand-in, not the grader.
        {"fill_address_space", "crashed"},   {"forget_images", "wrong-result"},
        // The host has one thread: a clone is killed before it takes the uid's process slots.
        {"thread_bomb", "forbidden"},
        // An object whose listing the checks cannot read whole is refused, not half-checked.
        {"huge_listing", "compile-error"},
    };
    for (const auto& [id, status] : expected) {
        INFO(id << ": " << records[id].dump());
        CHECK(records[id]["status"] == status);
    }
    for (const auto& [id, expects] : stated) {
        INFO(id << " (as its fixture states): " << records[id].dump());
        CHECK(records[id]["status"] == expects.first);
        CHECK(records[id]["total"].get<double>() == expects.second);
    }
    // The student's text reaches no output as it was: no control character acts on
    // the instructor's terminal or in the files, no reason cell is a formula.
    CHECK_THAT(records["escape_compile_error"]["reason"].get<std::string>(), Catch::Contains("\\x1b]52;c;"));
    const std::string feedback_of_escape = test::read_file(out + "/feedback/escape_compile_error.txt");
    const std::string feedback_of_prints = test::read_file(out + "/feedback/prints_verdict.txt");
    for (const auto& [what, text] : std::map<std::string, std::string>{
             {"stderr", batch.err}, {"gradebook.csv", test::read_file(out + "/gradebook.csv")},
             {"results.jsonl", test::read_file(out + "/results.jsonl")}, {"feedback", feedback_of_escape},
             {"feedback of prints_verdict", feedback_of_prints}}) {
        INFO(what);
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find('\x07') == std::string::npos);
    }
    std::istringstream csv(test::read_file(out + "/gradebook.csv"));
    for (std::string row; std::getline(csv, row);) {
        // The reason is the ninth and last cell; the eight before it hold no comma.
        std::size_t at = 0;
        for (int comma = 0; comma < 8 && at != std::string::npos; ++comma) at = row.find(',', at + (comma > 0));
        if (at == std::string::npos) continue;
        const std::string cell = row.substr(at + 1);
        const auto first = cell.find_first_not_of(" \"");
        INFO(row);
        if (first != std::string::npos) CHECK(std::string("=+-@").find(cell[first]) == std::string::npos);
    }
    CHECK_THAT(records["formula_stderr"]["reason"].get<std::string>(), Catch::StartsWith("the kernel host crashed"));
    // What a host printed is shown as its own, each line marked, never as the
    // grader's or the driver's words; the verdict comes from the report channel.
    {
        INFO(feedback_of_prints);
        CHECK_THAT(records["prints_verdict"]["reason"].get<std::string>(), Catch::StartsWith("graded: median of "));
        const auto block = feedback_of_prints.find("\n--- kernels.c printed (its own output, not the driver's) ---\n");
        REQUIRE(block != std::string::npos);
        CHECK_THAT(feedback_of_prints.substr(block),
                   Catch::Contains("\n| \\x1b]0;graded\\x07\\x1b]52;c;Y3VybCBldmlsfHNo\\x07\\r\\x1b[2Kok, 100.0 points\n") &&
                       Catch::Contains("\n| ./driver: internal error: the grader failed") &&
                       Catch::Contains("\n| rotate: status ok, 100.0 points\\x1b[1A\n"));
        for (const char* forged : {"\nok, 100.0 points", "\nperflab-grader:", "\n./driver: internal error", "\nrotate: status"})
            CHECK(feedback_of_prints.find(forged) == std::string::npos);
        // A crashed host's last words are shown the same way, the reason the driver's.
        CHECK_THAT(test::read_file(out + "/feedback/formula_stderr.txt"), Catch::Contains("\n| x: +HYPERLINK("));
    }
    CHECK_THAT(records["tar_header_bomb"]["reason"].get<std::string>(), Catch::Contains("expands to over 64 MiB"));
    CHECK_THAT(records["include_devzero"]["reason"].get<std::string>(), Catch::Contains("/dev/zero"));
    CHECK_THAT(records["incbin_secret"]["reason"].get<std::string>(), Catch::Contains("not found"));
    CHECK_THAT(records["fill_address_space"]["reason"].get<std::string>(), Catch::Contains("what kernels.c allocates"));
    CHECK_THAT(records["forget_images"]["reason"].get<std::string>(), Catch::Contains("kernels.c may only compute dst"));

    // Nothing read: no secret anywhere in what the grader wrote or printed.
    std::string written = everything_under(out) + batch.out + batch.err;
    for (const auto& secret : {instructor_secret, handin_secret, std::string("root:")}) {
        INFO(secret);
        CHECK(written.find(secret) == std::string::npos);
    }
    // Nothing written outside: the canary, the baseline and the hand-ins as they were.
    CHECK(test::read_file(dir + "/canary.txt") == "canary " + token + "\n");
    CHECK(fs::last_write_time(dir + "/canary.txt") == canary_time);
    CHECK(test::read_file(dir + "/baseline.toml") == calibrated.out);
    CHECK_FALSE(fs::exists(dir + "/perflab-pwned-kernels.c"));
    CHECK_FALSE(fs::exists(repo("perflab-pwned-kernels.c")));
    for (const auto& d : {handins, out, dir})
        for (const auto& e : fs::directory_iterator(d)) CHECK_THAT(e.path().string(), !Catch::Contains("perflab-fill"));
    // No network, and no process left behind.
    CHECK(listener.connections == 0);
    CHECK(processes_with(dir) == 0);

    // The controls earn the same in this company as alone.
    auto by_itself = grade(alone, out_alone);
    INFO(by_itself.err);
    REQUIRE(by_itself.status == 0);
    auto controls = records_by_id(out_alone + "/results.jsonl");
    for (const char* id : {"control_a", "control_b"}) {
        INFO(id);
        CHECK(records[id]["status"] == "ok");
        CHECK(controls[id]["status"] == "ok");
        CHECK(records[id]["total"] == earned);
        CHECK(controls[id]["total"] == records[id]["total"]);
    }
}

TEST_CASE("a run that did not exit 0 scores nothing, whatever its report says", "[grader]") {
    const json report = json::parse(R"({"kernels": {
        "rotate": {"variants": [{"name": "rotate", "graded": true, "correct": true, "mean_speedup": 3.0}]},
        "smooth": {"variants": [{"name": "smooth", "graded": true, "correct": true, "mean_speedup": 3.0}]}}})");
    SandboxSettings limits;
    DriverRun clean;
    clean.finished.exit_code = 0;
    clean.report = report;
    Trial ok = judge(clean, limits);
    CHECK(ok.outcome.status == Status::ok);  // control: the same report counts from a clean run
    CHECK(ok.rotate.correct);
    CHECK(ok.rotate.speedup == 3.0);

    DriverRun hung = clean, killed = clean, failed = clean;
    hung.finished.timed_out = true;
    killed.finished.exit_code = -1;
    killed.finished.signal = SIGSYS;
    failed.finished.exit_code = 1;
    for (const auto* run : {&hung, &killed, &failed}) {
        Trial t = judge(*run, limits);
        CHECK(t.outcome.status != Status::ok);
        CHECK_FALSE(t.rotate.correct);
        CHECK_FALSE(t.smooth.correct);
    }
    CHECK(judge(hung, limits).outcome.status == Status::timeout);
    CHECK(judge(killed, limits).outcome.status == Status::forbidden);
}

TEST_CASE("grader check-sandbox says whether hand-ins can be sandboxed, and why not", "[grader][sandbox]") {
    auto ok = test::run({grader_bin(), "check-sandbox"});
    CHECK(ok.status == 0);
    CHECK_THAT(ok.out, Catch::Contains("sandbox ok"));
    auto missing = test::run({grader_bin(), "check-sandbox"}, "", {"PERFLAB_BWRAP=/nonexistent/bwrap"});
    CHECK(missing.status == 1);
    CHECK_THAT(missing.err, Catch::Contains("apt-get install bubblewrap"));
    // And grading refuses to start rather than run untrusted code unsandboxed.
    std::string dir = test::scratch_dir("grader-no-sandbox");
    test::write_file(dir + "/handins/a.c", test::read_file(fixture("good")));
    auto refused = test::run(grade_argv(dir + "/handins", dir + "/out"), "", {"PERFLAB_BWRAP=/nonexistent/bwrap"});
    CHECK(refused.status == 1);
    CHECK_THAT(refused.err, Catch::Contains("bubblewrap is not installed"));
    CHECK_FALSE(fs::exists(dir + "/out/results.jsonl"));
}

TEST_CASE("an unprivileged user grades with the same sandbox (user namespaces)", "[grader][sandbox]") {
    // Already unprivileged: every other grader test is this case.
    if (geteuid() != 0) PERFLAB_SKIP("switching to another user needs root; every other grader test runs unprivileged here");
    // uid 65534 needs no access to anything of the caller's but the hand-in and the tree.
    std::string kernels = fixture("wrong");
    fs::permissions(kernels, fs::perms(0644));
    auto r = test::run({"setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", grader_bin(), "autolab",
                        kernels, "--trials", "1", "--driver-args", kQuickDriver},
                       "", {"TMPDIR=/tmp"});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("status: wrong-result"));
}

TEST_CASE("the compiler runs within its memory limit and its output cap", "[grader][sandbox]") {
    Layout layout = find_layout(std::nullopt);
    BuildSettings settings;
    settings.memory_bytes = 256ull << 20;
    auto build = [&](const std::string& name, const std::string& source) {
        HandinDirs dirs(test::scratch_dir("grader-compile-limits") + "/" + name);
        test::write_file(dirs.src + "/kernels.c", source);
        return build_handin(layout, dirs, settings);
    };
    // Sixteen million initialisers: cc1 wants gigabytes for them.
    std::string bomb = "#define A0 1,1,1,1,1,1,1,1\n";
    for (int i = 1; i <= 7; ++i) {
        std::string prev = fmt::format("A{}", i - 1);
        bomb += fmt::format("#define A{} {},{},{},{},{},{},{},{}\n", i, prev, prev, prev, prev, prev, prev, prev, prev);
    }
    bomb += "int big[] = {A7};\n";
    Built hungry = build("bomb", bomb);
    REQUIRE(hungry.failure);
    CHECK(hungry.failure->status == Status::compile_error);
    CHECK_THAT(hungry.failure->reason, Catch::Contains("memory") && Catch::Contains("256 MiB"));

    // Thousands of errors: the feedback keeps the first 64 KiB and names the first error.
    std::string noisy;
    for (int i = 0; i < 5000; ++i) noisy += fmt::format("int f{}(void) {{ return undeclared_{}; }}\n", i, i);
    Built loud = build("noisy", noisy);
    REQUIRE(loud.failure);
    CHECK(loud.failure->status == Status::compile_error);
    CHECK(loud.log.size() <= 64 * 1024);
    CHECK_THAT(loud.failure->reason, Catch::Contains("undeclared_0"));
}

TEST_CASE("an oracle that moves between two levels mid-batch is flagged; noise and outliers are not", "[grader]") {
    using perflab::grader::regime_change;
    // The issue's batch: the oracle at 4.7 for eight hand-ins' trials, then 4.1.
    std::vector<double> moved;
    for (int i = 0; i < 24; ++i) moved.push_back(4.7 + 0.05 * ((i * 7) % 3 - 1));
    for (int i = 0; i < 12; ++i) moved.push_back(4.1 + 0.05 * ((i * 5) % 3 - 1));
    auto c = regime_change(moved);
    REQUIRE(c);
    CHECK(c->after_trial == 25);
    CHECK(c->change_percent() == Approx(-12.8).margin(0.5));
    // Noise of a few percent around one level.
    std::vector<double> steady;
    for (int i = 0; i < 36; ++i) steady.push_back(4.7 * (1 + 0.03 * ((i * 7) % 5 - 2) / 2));
    CHECK_FALSE(regime_change(steady));
    // Two outliers at the end are not a regime.
    std::vector<double> outliers(30, 4.7);
    outliers.push_back(6.0);
    outliers.push_back(6.1);
    CHECK_FALSE(regime_change(outliers));
    // Too few trials on a side to tell.
    CHECK_FALSE(regime_change({4.7, 4.7, 4.1, 4.1}));
}
