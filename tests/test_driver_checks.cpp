// Each way a kernel can be wrong, through a driver built from a deliberately
// broken kernels file: named exactly, while the variants after it still run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace perflab::test;
using nlohmann::json;

namespace {

struct BrokenRun {
    CommandResult result;
    json report;
};

const BrokenRun& broken_run() {
    static const BrokenRun r = [] {
        std::string exe = build_driver("tests/fixtures/kernels/broken.c");
        std::string dir = scratch_dir("broken");
        auto res = run({exe, "--dims", "64,128", "--max-samples", "3", "--timeout", "1", "--json", dir + "/r.json"});
        return BrokenRun{res, json::parse(read_file(dir + "/r.json"))};
    }();
    return r;
}

const json& variant(const std::string& short_name) {
    for (const auto& v : broken_run().report["kernels"]["rotate"]["variants"])
        if (v["name"].get<std::string>().rfind(short_name + ":", 0) == 0) return v;
    FAIL("no variant " << short_name);
    throw;
}

// The text block the report printed for one variant.
std::string text_block(const std::string& short_name) {
    const std::string& out = broken_run().result.out;
    auto start = out.find("Rotate: Version = " + short_name + ":");
    REQUIRE(start != std::string::npos);
    auto end = out.find("Version = ", start + std::string("Rotate: Version = ").size());
    return out.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("a broken kernels file is reported variant by variant", "[driver][checks]") {
    REQUIRE(broken_run().result.status == 0);
    CHECK(variant("correct")["correct"] == true);
    // The last variant is registered after every broken one: it still ran.
    CHECK(variant("correct_again")["correct"] == true);
    CHECK(variant("correct_again")["mean_speedup"].get<double>() > 0);
}

TEST_CASE("one wrong pixel: count, position, expected and actual", "[driver][checks]") {
    const json& v = variant("one_wrong_pixel");
    CHECK(v["correct"] == false);
    CHECK(v["failure"]["kind"] == "wrong-result");
    CHECK(v["failure"]["dim"] == 96);  // the odd dimension is checked first
    CHECK(v["failure"]["wrong_pixels"] == 1);
    CHECK(v["failure"]["first"]["row"] == 2);
    CHECK(v["failure"]["first"]["col"] == 3);
    // The fixture flips the lowest bit of green only.
    auto expected = v["failure"]["first"]["expected"], actual = v["failure"]["first"]["actual"];
    CHECK(expected[0] == actual[0]);
    CHECK((expected[1].get<int>() ^ actual[1].get<int>()) == 1);
    CHECK(expected[2] == actual[2]);
    std::string text = text_block("one_wrong_pixel");
    CHECK_THAT(text, Catch::Contains("ERROR: Dimension=96, 1 errors") && Catch::Contains("You have dst[2][3]") &&
                         Catch::Contains("It should be dst[2][3]"));
}

TEST_CASE("a write to src is named as such", "[driver][checks]") {
    const json& v = variant("writes_src");
    CHECK(v["failure"]["kind"] == "src-modified");
    CHECK_THAT(v["error"].get<std::string>(), Catch::Contains("src was modified") && Catch::Contains("src[48][48]"));
}

TEST_CASE("a pixel left unwritten is told apart from a wrong one", "[driver][checks]") {
    const json& v = variant("leaves_one_unwritten");
    CHECK(v["failure"]["kind"] == "unwritten");
    CHECK(v["failure"]["unwritten_pixels"] == 1);
    CHECK(v["failure"]["first"]["row"] == 0);
    CHECK(v["failure"]["first"]["col"] == 0);
    CHECK_THAT(text_block("leaves_one_unwritten"), Catch::Contains("left unwritten"));
}

TEST_CASE("writes past the end and before the start of dst are out of bounds", "[driver][checks]") {
    const json& past = variant("writes_past_dst");
    CHECK(past["failure"]["kind"] == "out-of-bounds");
    CHECK_THAT(past["error"].get<std::string>(), Catch::Contains("past the end of dst"));
    const json& before = variant("writes_before_dst");
    CHECK(before["failure"]["kind"] == "out-of-bounds");
    CHECK_THAT(before["error"].get<std::string>(), Catch::Contains("before the start of dst"));
}

TEST_CASE("a kernel that replays an earlier answer fails in a timed call", "[driver][checks]") {
    const json& v = variant("remembers");
    CHECK(v["failure"]["kind"] == "wrong-result");
    // It passes the checks before timing (it computes afresh for a new size) and
    // is caught only because every timed sample gets fresh input.
    CHECK(v["failure"]["dim"] == 64);
    CHECK_THAT(v["error"].get<std::string>(), Catch::Contains("in a timed call"));
}

TEST_CASE("a crash and an endless loop end only their own variant", "[driver][checks]") {
    const json& crash = variant("crashes");
    CHECK(crash["failure"]["kind"] == "crashed");
    CHECK_THAT(crash["error"].get<std::string>(), Catch::Contains("SIGSEGV"));
    const json& loop = variant("loops");
    CHECK(loop["failure"]["kind"] == "timeout");
    CHECK_THAT(loop["error"].get<std::string>(), Catch::Contains("did not return within 1 s"));
}

TEST_CASE("a kernel with no variant registered gets a notice, not 0.0 ((null))", "[driver][checks]") {
    const std::string& out = broken_run().result.out;
    CHECK_THAT(out, Catch::Contains("Smooth: no smooth variant registered: call add_smooth_function()"));
    CHECK(out.find("(null)") == std::string::npos);
    CHECK(broken_run().report["kernels"]["smooth"]["notice"].is_string());
}

TEST_CASE("a kernels file full of the classic driver's names still links", "[driver][checks]") {
    std::string exe = build_driver("tests/fixtures/kernels/colliding.c");
    auto r = run({exe, "--dims", "32", "--max-samples", "2"});
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Member 1: 名字 Student\n") && Catch::Contains("Member 2: Second Person\n"));
    CHECK_THAT(r.out, Catch::Contains("Smooth: Version = naive_smooth: 平滑 baseline:\nDim"));
    // The host runtime a kernels file is linked with exports nothing but the C surface
    // (main and the two registration calls) and the reference host's argument hook;
    // the one oracle_rotate in the host is the file's own: the driver's is not there.
    std::string runtime = repo("build/host-runtime.o");
    auto plain = sh("nm --defined-only --extern-only " + runtime + " | awk '{print $3}' | sort");
    CHECK(plain.out == "add_rotate_function\nadd_smooth_function\nmain\nperflab_host_arg\n");
    CHECK(sh("nm " + repo("build/tests/drivers/colliding/kernel-host") + " | grep -c ' oracle_rotate$'").out == "1\n");
}

TEST_CASE("a kernels file that closes the host's image socket fails its variants, and the run reports them",
          "[driver][checks]") {
    std::string exe = build_driver("tests/fixtures/kernels/closes_socket.c");
    std::string dir = scratch_dir("closes_socket");
    auto r = run({exe, "--dims", "32", "--max-samples", "2", "--json", dir + "/r.json"});
    INFO(r.out << r.err);
    // The kernels file's failure, not the driver's: every variant is reported, and
    // the run's report is written.
    CHECK(r.status == 0);
    const json report = json::parse(read_file(dir + "/r.json"));
    int failed = 0;
    for (const char* kernel : {"rotate", "smooth"})
        for (const auto& v : report["kernels"][kernel]["variants"]) {
            CHECK(v["failure"]["kind"] == "crashed");
            CHECK_THAT(v["error"].get<std::string>(), Catch::Contains("closed the socket they come through") &&
                                                          Catch::Contains("kernels.c must not close descriptors"));
            ++failed;
        }
    CHECK(failed >= 2);
    CHECK(lines_starting_with(r.out, "ERROR: Dimension=96, the kernel host could not take 96x96 images").size() ==
          std::size_t(failed));
}

TEST_CASE("a kernel that rewrites the host's report of a call is refused, and the next variant still runs",
          "[driver][checks]") {
    std::string exe = build_driver("tests/fixtures/kernels/forges_report.c");
    std::string dir = scratch_dir("forges_report");
    auto r = run({exe, "-t", "--kernel", "rotate", "--dims", "64", "--max-samples", "3", "--json", dir + "/r.json"});
    INFO(r.out << r.err);
    const json report = json::parse(read_file(dir + "/r.json"));
    const auto& variants = report["kernels"]["rotate"]["variants"];
    REQUIRE(variants.size() == 2);
    CHECK(variants[0]["correct"] == false);
    CHECK(variants[0]["failure"]["kind"] == "tampered");
    CHECK_THAT(variants[0]["error"].get<std::string>(),
               Catch::Contains("kernels.c may only compute dst"));
    CHECK(variants[1]["correct"] == true);
    CHECK(variants[1]["dims"][0]["cpe"].get<double>() > 0);
}
