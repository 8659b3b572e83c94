// ./driver --explain through drivers built from fixture kernels files, each made
// to trigger one finding; the findings are read from --json. Assertions are on ids
// and on the direction of the figures, never on timings or prose.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>

#include "driver/explain/build_state.hpp"
#include "harness.hpp"
#include "common/system_noise.hpp"
#include "driver/evidence/tile_sweep.hpp"

using namespace perflab::test;
using nlohmann::json;

namespace {

// Only one kernel per run, at the default dimension, with few samples: the
// figures come from the (deterministic) simulation.
json explain(const std::string& exe, const std::string& kernel, const std::string& name,
             const std::vector<std::string>& extra = {}) {
    std::string dir = scratch_dir("explain-" + name);
    std::vector<std::string> argv{exe, "-t", "--explain", "--kernel", kernel, "--max-samples", "5", "--json",
                                  dir + "/explain.json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = run(argv);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return json::parse(read_file(dir + "/explain.json"));
}

const json& fixture(const std::string& name, const std::string& kernel) {
    static std::map<std::string, json> cache;
    auto it = cache.find(name);
    if (it == cache.end())
        it = cache.emplace(name, explain(build_driver("tests/fixtures/explain/" + name + ".c"), kernel, name)).first;
    return it->second;
}

std::vector<json> findings(const json& report, const std::string& id) {
    std::vector<json> out;
    for (const auto& f : report["findings"])
        if (f["id"] == id) out.push_back(f);
    return out;
}

// A finding that asks for attention (not info, not a clean check).
bool raised(const json& report, const std::string& id, const std::string& variant_prefix = "") {
    for (const auto& f : findings(report, id))
        if ((f["severity"] == "problem" || f["severity"] == "warning") &&
            (variant_prefix.empty() || (f["variant"].is_string() && f["variant"].get<std::string>().rfind(variant_prefix, 0) == 0)))
            return true;
    return false;
}

const json& variant(const json& report, const std::string& kernel, const std::string& prefix) {
    for (const auto& v : report["measurements"][kernel]["variants"])
        if (v["name"].get<std::string>().rfind(prefix, 0) == 0) return v;
    FAIL("no variant " << prefix);
    throw;
}

}  // namespace

TEST_CASE("explain: a rotate that is naive under another name is called out by name", "[explain]") {
    const json& r = fixture("renamed_naive", "rotate");
    CHECK(raised(r, "variant-equals-naive", "fast_rotate"));
    const json& fast = variant(r, "rotate", "fast_rotate");
    const json& naive = r["measurements"]["rotate"]["naive"];
    CHECK(fast["figures"]["instructions_per_px"].get<double>() ==
          Approx(naive["figures"]["instructions_per_px"].get<double>()).epsilon(0.05));
    // Said once: its misses are naive's, which the naive finding already covers.
    CHECK_FALSE(raised(r, "memory-misses"));
    // rotate() is not registered but calls fast_rotate: the grader times the fastest.
    CHECK_FALSE(raised(r, "graded-function"));
    CHECK(r["measurements"]["rotate"]["graded_symbol"] == "rotate");
}

TEST_CASE("explain: an unrolled-only rotate misses as often as naive and is told to tile", "[explain]") {
    const json& r = fixture("unrolled", "rotate");
    CHECK(raised(r, "memory-misses", "rotate_unrolled"));
    CHECK_FALSE(raised(r, "variant-equals-naive"));
    CHECK_FALSE(raised(r, "work-per-pixel"));
    const json& unrolled = variant(r, "rotate", "rotate_unrolled")["figures"];
    const json& naive = r["measurements"]["rotate"]["naive"]["figures"];
    CHECK(unrolled["d1_write_misses_per_px"].get<double>() ==
          Approx(naive["d1_write_misses_per_px"].get<double>()).epsilon(0.10));
    for (const auto& f : findings(r, "memory-misses"))
        if (f["variant"].get<std::string>().rfind("rotate_unrolled", 0) == 0)
            CHECK_THAT(f["advice"].get<std::string>(), Catch::Contains("tile"));
    // rotate() jumps to rotate_unrolled (a tail call read from its first instruction).
    CHECK(r["measurements"]["rotate"]["graded_jumps_to"] == "rotate_unrolled");
}

TEST_CASE("explain: a properly blocked rotate has no memory finding", "[explain]") {
    const json& r = fixture("blocked", "rotate");
    CHECK_FALSE(raised(r, "memory-misses"));
    CHECK_FALSE(raised(r, "variant-equals-naive"));
    const json& blocked = variant(r, "rotate", "rotate_blocked")["figures"];
    const json& naive = r["measurements"]["rotate"]["naive"]["figures"];
    CHECK(blocked["d1_write_misses_per_px"].get<double>() <= 0.5 * naive["d1_write_misses_per_px"].get<double>());
    auto memory = findings(r, "memory-misses");
    REQUIRE_FALSE(memory.empty());
    CHECK(memory[0]["severity"] == "ok");
    // The repository's driver has the reference kernels: the tile sweep ran.
    CHECK(r["reference_kernels"] == true);
    auto tiles = findings(r, "tile-advice");
    REQUIRE(tiles.size() == 1);
    CHECK(tiles[0]["evidence"].contains("best reference tile"));
    CHECK(r["measurements"]["rotate"]["tile_sweep"].size() >= 4);
}

TEST_CASE("explain: a smooth with per-pixel bounds checks does too much work", "[explain]") {
    const json& r = fixture("bounds_smooth", "smooth");
    CHECK(raised(r, "work-per-pixel", "smooth_checked"));
    CHECK_FALSE(raised(r, "memory-misses"));
    CHECK_FALSE(raised(r, "variant-equals-naive"));
    const double mine = variant(r, "smooth", "smooth_checked")["figures"]["instructions_per_px"].get<double>();
    const double ref = r["measurements"]["smooth"]["reference"]["figures"]["instructions_per_px"].get<double>();
    CHECK(mine > 2 * ref);
}

TEST_CASE("explain: a kernels file changed after the build is a stale build", "[explain]") {
    std::string dir = scratch_dir("explain-stale-src");
    for (const char* f : {"blocked.c", "common.h"})
        std::filesystem::copy_file(repo(std::string("tests/fixtures/explain/") + f), dir + "/" + f);
    std::filesystem::rename(dir + "/blocked.c", dir + "/stale_kernels.c");
    std::string exe = build_driver(dir + "/stale_kernels.c");
    const json fresh = explain(exe, "rotate", "fresh", {"--dims", "64"});
    CHECK_FALSE(raised(fresh, "stale-build"));
    std::filesystem::last_write_time(dir + "/stale_kernels.c",
                                     std::filesystem::file_time_type::clock::now() + std::chrono::seconds(30));
    const json stale = explain(exe, "rotate", "stale", {"--dims", "64"});
    CHECK(raised(stale, "stale-build"));
    CHECK_FALSE(raised(stale, "build-flags"));
}

TEST_CASE("explain: a build at -O0 is called out", "[explain]") {
    const json r = explain(build_driver("tests/fixtures/explain/blocked.c", "-O0"), "rotate", "O0", {"--dims", "64"});
    auto flags = findings(r, "build-flags");
    REQUIRE(flags.size() == 1);
    CHECK(flags[0]["severity"] == "problem");
    CHECK(flags[0]["evidence"]["optimisation"] == "-O0");
    CHECK_FALSE(raised(r, "stale-build"));
    // And the default build is not.
    CHECK(findings(fixture("blocked", "rotate"), "build-flags")[0]["severity"] == "ok");
}

TEST_CASE("explain: tile pairs that fit L1", "[explain]") {
    // 48 KiB, 64-byte lines: an edge-32 pair takes 2*32*(3+1) lines = 16 KiB (a
    // third); edge 54 takes 2*54*7 lines = 48384 bytes, edge 55 49280 > 49152.
    perflab::L1Geometry l1{49152, 64, "test"};
    CHECK(perflab::tile_pair_bytes(32, 64) == 16384);
    auto fit = perflab::tile_fit(l1);
    CHECK(fit.largest == 54);
    CHECK(fit.suggested == 32);
}

TEST_CASE("explain: busy and total jiffies of one CPU from /proc/stat", "[explain]") {
    const std::string stat = "cpu  10 0 5 100 2 0 1 3 0 0\ncpu0 4 0 2 60 1 0 0 1 0 0\ncpu1 6 0 3 40 1 0 1 2 0 0\n";
    auto one = perflab::parse_proc_stat(stat, 1);
    REQUIRE(one);
    CHECK(one->busy == 6 + 3 + 1 + 2);  // user, system, softirq, steal; idle and iowait are free time
    CHECK(one->total == 6 + 3 + 40 + 1 + 1 + 2);
    CHECK(perflab::parse_proc_stat(stat, -1)->total == 121);
    CHECK_FALSE(perflab::parse_proc_stat(stat, 7));
}

TEST_CASE("explain: SHA-256 as sha256sum prints it", "[explain]") {
    CHECK(perflab::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    std::string text(1000, 'x');
    std::string dir = scratch_dir("explain-sha");
    write_file(dir + "/t", text);
    auto sum = sh("sha256sum " + dir + "/t | cut -d' ' -f1");
    CHECK(perflab::sha256_hex(text) + "\n" == sum.out);
}
