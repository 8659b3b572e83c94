// mk/run-tests.sh, the summary line CI reads: skipped test cases are counted apart
// from the passes (Catch2 v2 counts them as passed), failures keep their status.
#include <catch2/catch.hpp>

#include <string>

#include "harness.hpp"

using namespace perflab::test;

namespace {

// Runs mk/run-tests.sh on a stand-in for the test binary that prints `output` and
// exits with `status`.
CommandResult summarise(const std::string& name, const std::string& output, int status) {
    const std::string dir = scratch_dir("run-tests-" + name);
    write_file(dir + "/output", output);
    write_file(dir + "/fake-tests", "#!/bin/sh\ncat '" + dir + "/output'\nexit " + std::to_string(status) + "\n");
    sh("chmod +x '" + dir + "/fake-tests'");
    return run({repo("mk/run-tests.sh"), dir + "/fake-tests"});
}

std::string last_line(const std::string& text) {
    const auto end = text.find_last_not_of('\n');
    return text.substr(text.rfind('\n', end) + 1, end - text.rfind('\n', end));
}

}  // namespace

TEST_CASE("make test's summary counts skipped test cases apart from the passes", "[harness]") {
    const auto all = summarise("pass",
                               "SKIPPED: slurm: one: needs root\nSKIPPED: slurm: one: needs root\n"
                               "SKIPPED: mountain png: no gnuplot\n"
                               "All tests passed (12 assertions in 5 test cases)\n",
                               0);
    CHECK(all.status == 0);
    CHECK(last_line(all.out) == "tests: 3 passed, 0 failed, 2 skipped");
    CHECK_THAT(all.out, Catch::Contains("  SKIPPED: mountain png: no gnuplot"));

    const auto failing = summarise("fail",
                                   "SKIPPED: slurm: one: needs root\n"
                                   "test cases: 6 | 4 passed | 2 failed\nassertions: 30 | 28 passed | 2 failed\n",
                                   2);
    CHECK(failing.status == 2);
    CHECK(last_line(failing.out) == "tests: 3 passed, 2 failed, 1 skipped");

    const auto none = summarise("none", "All tests passed (3 assertions in 2 test cases)\n", 0);
    CHECK(last_line(none.out) == "tests: 2 passed, 0 failed, 0 skipped");

    const auto crashed = summarise("crash", "a test aborted\n", 134);
    CHECK(crashed.status == 134);
    CHECK_THAT(last_line(crashed.out), Catch::StartsWith("tests: 0 passed, 1 failed, 0 skipped"));
}
