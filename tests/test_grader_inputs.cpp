// What reaches the grader from outside: the deployment an instructor ships, the
// uploads Autolab and Gradescope hand over, the policy file, the hand-in directory,
// and the points every platform shows for one grade.
#include <catch2/catch.hpp>

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
