// What reaches the grader from outside: the deployment an instructor ships, the
// uploads Autolab and Gradescope hand over, the policy file, the hand-in directory,
// and the points every platform shows for one grade.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver/core/scoring.hpp"
#include "grader/gradebook.hpp"
#include "grader/platforms.hpp"
#include "grader_outputs.hpp"
#include "harness.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using namespace perflab::grader;
using nlohmann::json;
using perflab::test::kQuickDriver;
using perflab::test::records_by_id;
using test::repo;

namespace {

std::string grader_bin() { return repo("grader"); }

// Any correct kernel earns 12.25 of 50, however fast: halves that each output used
// to round its own way.
const std::string kFlatPolicy = "[rotate]\nmax_points = 50\ncurve = [[1.0, 12.25], [2.0, 12.25]]\n"
                                "[smooth]\nmax_points = 50\ncurve = [[1.0, 12.25], [2.0, 12.25]]\n";

std::string last_line(const std::string& out) { return out.substr(out.rfind('\n', out.size() - 2) + 1); }

// handin.tar as the handout's `make handin` packs it: TEAM-kernels.c, and (from a Mac)
// the AppleDouble ._TEAM-kernels.c beside it.
void pack_handin(const std::string& tar, const std::string& kernels_text, bool apple_double = false) {
    const std::string pack = tar + ".pack";
    test::write_file(pack + "/team42-kernels.c", kernels_text);
    std::string members = "team42-kernels.c";
    if (apple_double) {
        test::write_file(pack + "/._team42-kernels.c", std::string("\0\5\26\7\0\2\0\0Mac OS X", 16));
        members += " ._team42-kernels.c";
    }
    REQUIRE(test::sh("tar -cf " + tar + " -C " + pack + " " + members + " && rm -rf " + pack).status == 0);
}

std::string grade_policy(const std::string& dir, const std::string& text) {
    test::write_file(dir + "/policy.toml", text);
    fs::create_directories(dir + "/empty");
    return test::run({grader_bin(), "grade", dir + "/empty", "--out", dir + "/out", "--policy", dir + "/policy.toml"}).err;
}

}  // namespace

TEST_CASE("make grader-bundle makes a deployment that grades a hand-in from anywhere", "[grader-inputs]") {
    auto made = test::run({"make", "-s", "-C", repo(""), "grader-bundle"});
    INFO(made.out << made.err);
    REQUIRE(made.status == 0);
    // Copied away from the tree, so nothing can come from the build directory.
    const std::string dir = test::scratch_dir("grader-bundle");
    REQUIRE(test::sh("cp -a " + repo("build/grader-bundle/.") + " " + dir).status == 0);
    const std::string perflab = dir + "/perflab";

    auto graded = test::run({perflab + "/grader", "autolab", "--perflab", perflab, test::fixture_handin("good"), "--trials",
                             "1", "--driver-args", kQuickDriver});
    INFO(graded.out << graded.err);
    REQUIRE(graded.status == 0);
    CHECK_THAT(graded.out, Catch::Contains("status: ok"));

    // The Autolab Makefile as shipped, given the handout's handin.tar rather than a kernels.c
    // (and the course's policy.toml, which it passes on).
    pack_handin(dir + "/handin.tar", test::read_file(test::fixture_handin("good")));
    test::write_file(dir + "/policy.toml", kFlatPolicy);
    auto autograde = test::run({"make", "-s", "-C", dir, "autograde", "TRIALS=1",
                                "GRADER_ARGS=--driver-args '" + kQuickDriver + "'"});
    INFO(autograde.out << autograde.err);
    REQUIRE(autograde.status == 0);
    CHECK_THAT(autograde.out, Catch::Contains("status: ok"));
    CHECK(json::parse(last_line(autograde.out))["scores"]["rotate"] == 12.3);

    // Every library grader and driver are linked with comes from a package setup.sh
    // installs (apt brings what those need in turn).
    const std::string setup = test::read_file(repo("src/grader/setup.sh"));
    for (const char* bin : {"grader", "driver"}) {
        const std::string path = perflab + "/" + bin;
        auto packages = test::sh("for so in $(objdump -p " + path + " | sed -n 's/^ *NEEDED *//p'); do "
                                 "lib=$(ldd " + path + " | sed -n \"s|^\\s*$so => \\([^ ]*\\).*|\\1|p\"); "
                                 "f=$(readlink -f \"$lib\"); { dpkg -S \"$f\" || dpkg -S \"${f#/usr}\" || "
                                 "echo \"no package has $so\"; } 2>/dev/null; done | cut -d: -f1 | sort -u");
        REQUIRE(packages.status == 0);
        std::istringstream in(packages.out);
        for (std::string pkg; std::getline(in, pkg);) {
            if (pkg == "libc6" || pkg == "libgcc-s1") continue;  // in every Debian image
            INFO(bin << " needs " << pkg);
            CHECK(setup.find(" " + pkg) != std::string::npos);
        }
    }
}

TEST_CASE("the grader works installed in a 0700 directory owned by root, which the sandbox cannot enter",
          "[grader-inputs][sandbox]") {
    if (geteuid() != 0) {
        SUCCEED("not root: no root-owned directory to install into");
        return;
    }
    auto made = test::run({"make", "-s", "-C", repo(""), "grader-bundle"});
    INFO(made.out << made.err);
    REQUIRE(made.status == 0);
    // As /root or a home directory is: the sandbox's uid (65534) may not even pass through.
    const std::string top = test::scratch_dir("grader-0700");
    REQUIRE(test::sh("cp -a " + repo("build/grader-bundle/perflab") + " " + top + "/perflab").status == 0);
    test::write_file(top + "/handins/alice.c", test::read_file(test::fixture_handin("good")));
    REQUIRE(chown(top.c_str(), 0, 0) == 0);
    fs::permissions(top, fs::perms::owner_all);
    const std::string perflab = top + "/perflab";
    // The work directories stay where the sandbox can reach them (docs/grader.md, Deploying).
    const std::vector<std::string> env{"TMPDIR=/tmp"};

    auto check = test::run({perflab + "/grader", "check-sandbox", "--perflab", perflab}, "", env);
    INFO(check.out << check.err);
    CHECK(check.status == 0);
    CHECK_THAT(check.out, Catch::Contains("sandbox ok"));
    auto graded = test::run({perflab + "/grader", "grade", top + "/handins", "--out", top + "/out", "--perflab", perflab,
                             "--trials", "1", "--driver-args", kQuickDriver},
                            "", env);
    INFO(graded.err);
    CHECK(graded.status == 0);
    CHECK(records_by_id(top + "/out/results.jsonl")["alice"]["status"] == "ok");
    fs::permissions(top, fs::perms(0755));  // for the scratch directory's cleanup by others
}

TEST_CASE("Gradescope and Autolab take the handout's handin.tar and TEAM-kernels.c, and never leave a hand-in ungraded",
          "[grader-inputs]") {
    const std::string dir = test::scratch_dir("grader-uploads");
    test::write_file(dir + "/flat.toml", kFlatPolicy);
    const std::string good = test::read_file(test::fixture_handin("good"));
    auto gradescope = [&](const std::string& submission) {
        fs::remove(dir + "/results.json");
        auto r = test::run({grader_bin(), "gradescope", "--submission", submission, "--results", dir + "/results.json",
                            "--policy", dir + "/flat.toml", "--trials", "1", "--driver-args", kQuickDriver});
        INFO(r.out << r.err);
        REQUIRE(r.status == 0);
        return json::parse(test::read_file(dir + "/results.json"));
    };

    SECTION("TEAM-kernels.c where run_autograder once looked for kernels.c") {
        test::write_file(dir + "/team/team42-kernels.c", good);
        json results = gradescope(dir + "/team/kernels.c");
        CHECK(results["tests"][0]["score"] == 12.3);
        // One grade, one rounding: the score is the sum of the tests as shown.
        CHECK(results["score"] == 24.6);
        CHECK(results["leaderboard"][0]["value"] == 24.6);
    }
    SECTION("handin.tar in the submission directory") {
        pack_handin(dir + "/tar/handin.tar", good);
        json results = gradescope(dir + "/tar");
        CHECK(results["score"] == 24.6);
    }
    SECTION("an upload without kernels.c still gets results.json: 0 points and why") {
        test::write_file(dir + "/none/notes.txt", "forgot the file");
        json results = gradescope(dir + "/none");
        CHECK(results["score"] == 0.0);
        CHECK_THAT(results["output"].get<std::string>(), Catch::Contains("unusable") && Catch::Contains("no kernels.c"));
    }
    SECTION("Autolab: a handin.tar stored as kernels.c is read as the archive it is") {
        pack_handin(dir + "/sub/kernels.c", good);
        auto r = test::run({grader_bin(), "autolab", dir + "/sub/kernels.c", "--policy", dir + "/flat.toml", "--trials", "1",
                            "--driver-args", kQuickDriver});
        INFO(r.out << r.err);
        REQUIRE(r.status == 0);
        json line = json::parse(last_line(r.out));
        CHECK(line["scores"]["rotate"] == 12.3);
        CHECK(line["scoreboard"][0] == 24.6);
        CHECK_THAT(r.out, Catch::Contains("points: rotate 12.3  smooth 12.3  total 24.6"));
    }
    SECTION("Autolab: a path that does not exist (a typo) is refused in one line naming it, never graded as another") {
        auto r = test::run({grader_bin(), "autolab", dir + "/nowhere/kernels.c"});
        INFO(r.out << r.err);
        CHECK(r.status != 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_THAT(r.err, Catch::Contains(dir + "/nowhere/kernels.c"));
        CHECK(r.out.find("scoreboard") == std::string::npos);
    }
}

TEST_CASE("a number out of its range or not a number is told what it must be, bounds as written", "[grader-inputs]") {
    const std::string dir = test::scratch_dir("grader-ranges");
    auto refused = [&](const std::vector<std::string>& args) {
        std::vector<std::string> argv{grader_bin(), "grade", dir + "/handins", "--out", dir + "/out"};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = test::run(argv);
        CHECK(r.status != 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        return r.err;
    };
    CHECK_THAT(refused({"--memory", "100"}), Catch::Contains("--memory: 100 is not a number from 256 to 10000000"));
    CHECK_THAT(refused({"--cpu-seconds", "abc"}), Catch::Contains("abc is not a whole number from 1 to 86400"));
    CHECK_THAT(refused({"--shard-size", "0"}), Catch::Contains("0 is not a whole number from 1 to 1000"));
    CHECK(!fs::exists(dir + "/out"));
}

TEST_CASE("a policy with a typo, a non-finite number or a falling curve is refused by name", "[grader-inputs]") {
    const std::string dir = test::scratch_dir("grader-policy");
    const std::string smooth = "[smooth]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n";
    auto refused = [&](const std::string& rotate) { return grade_policy(dir, "[rotate]\n" + rotate + smooth); };
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\nsetp = 5\n"),
               Catch::Contains("unknown key [rotate] setp"));
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\ndim = [256]\n"),
               Catch::Contains("unknown key [rotate] dim"));
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n[smoth]\nstep = 5\n"),
               Catch::Contains("unknown table [smoth]"));
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, nan]]\n"), Catch::Contains("finite"));
    CHECK_THAT(refused("max_points = inf\ncurve = [[1.0, 0], [3.5, 50]]\n"), Catch::Contains("finite"));
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\nstep = nan\n"), Catch::Contains("step must be"));
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [2.0, 50], [3.5, 10]]\n"),
               Catch::Contains("curve falls from 50 to 10"));
    // The [slurm] table is the grader's and stays allowed.
    CHECK_THAT(refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n[slurm]\npartition = \"p\"\n"),
               Catch::Contains("no hand-ins in"));

    std::string low = refused("max_points = 50\ncurve = [[1.0, 0], [3.5, 40]]\n");
    CHECK_THAT(low, Catch::Contains("warning: [rotate] curve tops out at 40 of max_points 50"));
    CHECK_THAT(low, Catch::Contains("no hand-ins in"));  // a warning, not a refusal
}

TEST_CASE("a policy written for the driver keeps every curve point it was given", "[grader-inputs]") {
    ScoringPolicy p = default_policy();
    p.rotate.curve = {{1.0001, 0}, {1.0004, 12.345678}, {1.0009, 50}};
    ScoringPolicy back = parse_policy(policy_to_toml(p, "round trip"), "written.toml");
    CHECK(back.rotate.curve == p.rotate.curve);
}

TEST_CASE("hand-ins are never dropped without a word, nor invented from the grader's output", "[grader-inputs]") {
    const std::string dir = test::scratch_dir("grader-discovery-inputs");
    const std::string handins = dir + "/handins";
    // A hand-in that fails fast: its status shows it was found and its file taken.
    const std::string broken = test::read_file(test::fixture_handin("compileerror"));
    test::write_file(handins + "/alice.zip", broken);
    test::write_file(handins + "/bob.C", broken);
    test::write_file(handins + "/gina.TAR", broken);
    test::write_file(handins + "/dave/team42-kernels.c", broken);
    pack_handin(handins + "/erin.tar", broken, /*apple_double=*/true);

    const std::vector<std::string> argv{grader_bin(), "grade", handins, "--out", handins + "/grades", "--trials", "1",
                                        "--driver-args", kQuickDriver};
    for (int run = 0; run < 2; ++run) {  // the second finds grades/ full of the first's output
        auto r = test::run(argv);
        INFO(r.err);
        REQUIRE(r.status == 0);
        for (const char* skipped : {"alice.zip", "bob.C", "gina.TAR"})
            CHECK_THAT(r.err, Catch::Contains(std::string("skipped ") + handins + "/" + skipped + ": not a hand-in"));
        if (run == 1) CHECK_THAT(r.err, Catch::Contains("skipped " + handins + "/grades: the grader's own output"));
        auto records = records_by_id(handins + "/grades/results.jsonl");
        CHECK(records.size() == 2);
        CHECK(records.count("grades") == 0);
        CHECK(records["dave"]["status"] == "compile-error");
        CHECK(records["erin"]["status"] == "compile-error");
    }
    // A batch of its own beside the first one's output (told apart by its contents),
    // its --out named another way; run twice, so that the second finds it there.
    for (int run = 0; run < 2; ++run) {
        auto again = test::run({grader_bin(), "grade", handins, "--out", handins + "/./grades2/", "--trials", "1",
                                "--driver-args", kQuickDriver});
        INFO(again.err);
        REQUIRE(again.status == 0);
        if (run == 1) CHECK_THAT(again.err, Catch::Contains("skipped " + handins + "/grades2: the grader's own output"));
        CHECK_THAT(again.err, Catch::Contains("skipped " + handins + "/grades: another batch's output"));
        CHECK(records_by_id(handins + "/grades2/results.jsonl").size() == 2);
    }

    // The hand-in directory as the output: refused before anything is written there.
    auto same = test::run({grader_bin(), "grade", handins, "--out", handins + "/", "--driver-args", kQuickDriver});
    CHECK(same.status != 0);
    CHECK_THAT(same.err, Catch::Contains("is the hand-in directory itself: give the batch a directory of its own"));
    CHECK_FALSE(fs::exists(handins + "/feedback"));
    CHECK_FALSE(fs::exists(handins + "/results.jsonl"));
    CHECK_FALSE(fs::exists(handins + "/.lock"));

    const std::string empty = dir + "/empty";
    fs::create_directories(empty);
    test::write_file(empty + "/README.txt", "nothing here");
    auto none = test::run({grader_bin(), "grade", empty, "--out", dir + "/out"});
    CHECK(none.status != 0);
    CHECK_THAT(none.err, Catch::Contains("no hand-ins in '" + empty + "'"));
}

TEST_CASE("every output's total is the sum of its parts as it shows them", "[grader-inputs]") {
    // A record from before points were rounded when graded: the outputs still agree.
    Record r;
    r.id = "alice";
    r.rotate_speedup = r.smooth_speedup = 2.0;
    r.rotate_points = r.smooth_points = 12.25;
    r.total = 24.5;
    r.trials = 1;
    json autolab = json::parse(autolab_line(r));
    CHECK(autolab["scores"]["rotate"] == 12.3);
    CHECK(autolab["scoreboard"][0] == 24.6);
    json gs = gradescope_results(r, default_policy(), "");
    CHECK(gs["tests"][0]["score"] == 12.3);
    CHECK(gs["tests"][1]["score"] == 12.3);
    CHECK(gs["score"] == 24.6);
    CHECK_THAT(gs["tests"][0]["output"].get<std::string>(), Catch::Contains("-> 12.3 of 50"));
    CHECK_THAT(gradebook_csv({r}), Catch::Contains(",12.3,12.3,24.6,"));
    // Tenths that add up in binary to 22.400000000000002 still show as 22.4.
    r.rotate_points = 12.3;
    r.smooth_points = 10.1;
    CHECK(json::parse(autolab_line(r))["scoreboard"][0].dump() == "22.4");
}

TEST_CASE("Gradescope's results.json may be named in the working directory, and no test scores above its maximum",
          "[grader-inputs]") {
    const std::string dir = test::scratch_dir("grader-gradescope-here");
    // Full marks of 12.25, which every output shows as 12.3.
    test::write_file(dir + "/odd.toml", "[rotate]\nmax_points = 12.25\ncurve = [[0, 12.25], [2, 12.25]]\n"
                                        "[smooth]\nmax_points = 12.25\ncurve = [[0, 12.25], [2, 12.25]]\n");
    test::write_file(dir + "/sub/kernels.c", test::read_file(test::fixture_handin("good")));
    auto r = test::sh("cd '" + dir + "' && '" + grader_bin() + "' gradescope --submission sub --results results.json " +
                      "--policy odd.toml --trials 1 --driver-args '" + kQuickDriver + "'");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    json results = json::parse(test::read_file(dir + "/results.json"));
    REQUIRE(results["tests"].size() == 2);
    for (const auto& t : results["tests"]) {
        INFO(t.dump());
        CHECK(t["score"].get<double>() <= t["max_score"].get<double>());
        CHECK(t["max_score"] == 12.3);
        CHECK_THAT(t["output"].get<std::string>(), Catch::EndsWith("-> 12.3 of 12.3 points"));
    }
}
