// cacheprobe and mountain: the knee, line-size and ways logic on synthetic curves, the
// result file, and the real binaries on this machine.
#include "common/sampler.hpp"
#include "knees.hpp"
#include "latency.hpp"
#include "common/affinity.hpp"
#include "common/machine.hpp"
#include "common/probe_result.hpp"
#include "harness.hpp"
#include "hierarchy.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <sstream>

using namespace perflab;

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

struct Run {
    int status = -1;
    std::string output;  // stdout and stderr together
};

Run run(const std::string& command) {
    auto r = test::sh(command + " 2>&1");
    return {r.status, r.out};
}

std::string bin(const std::string& name) { return std::string(PERFLAB_ROOT) + "/" + name; }

std::string scratch(const std::string& name) {
    const auto dir = std::filesystem::path(PERFLAB_ROOT) / "build/tests/tmp/probe";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

// A latency curve over the cacheprobe grid with ideal LRU caches: each level's latency
// up to its capacity, the next level's beyond.
struct Cache {
    std::size_t size;
    double ns;
};
std::vector<LatencyPoint> staircase(const std::vector<Cache>& caches, double memory_ns,
                                    std::size_t max_bytes = 128 * MiB) {
    std::vector<LatencyPoint> curve;
    for (std::size_t x : size_grid(4 * KiB, max_bytes, 4)) {
        double ns = memory_ns;
        for (auto it = caches.rbegin(); it != caches.rend(); ++it)
            if (x <= it->size) ns = it->ns;
        curve.push_back({x, ns, 0.01});
    }
    return curve;
}

LatencyPoint& at(std::vector<LatencyPoint>& curve, std::size_t x) {
    for (auto& p : curve)
        if (p.x == x) return p;
    FAIL("no point at " << x);
    return curve.front();
}

}  // namespace

TEST_CASE("a clean staircase gives every level, certain, at its size", "[probe]") {
    const auto h = find_levels(staircase({{32 * KiB, 1}, {512 * KiB, 4}, {8 * MiB, 15}}, 100));
    REQUIRE(h.caches.size() == 3);
    CHECK(h.caches[0].size_bytes == 32 * KiB);
    CHECK(h.caches[1].size_bytes == 512 * KiB);
    CHECK(h.caches[2].size_bytes == 8 * MiB);
    CHECK(h.caches[0].latency_ns == Approx(1));
    CHECK(h.caches[1].latency_ns == Approx(4));
    CHECK(h.caches[2].latency_ns == Approx(15));
    for (const auto& level : h.caches) CHECK(level.certain);
    REQUIRE(h.memory);
    CHECK(h.memory->latency_ns == Approx(100));
    CHECK(h.memory->certain);
}

TEST_CASE("capacities that are not powers of two snap to 3 x 2^k and 5 x 2^k", "[probe]") {
    const auto h = find_levels(staircase({{48 * KiB, 1.2}, {1280 * KiB, 4}}, 90));
    REQUIRE(h.caches.size() == 2);
    CHECK(h.caches[0].size_bytes == 48 * KiB);
    CHECK(h.caches[1].size_bytes == 1280 * KiB);

    CHECK(snap_cache_size(48 * KiB, 56 * KiB) == 48 * KiB);   // 3 x 2^14 beats 7 x 2^13
    CHECK(snap_cache_size(896 * KiB, 1024 * KiB) == MiB);     // a power of two first
    CHECK(snap_cache_size(640 * KiB, 768 * KiB) == 768 * KiB);
    CHECK(snap_cache_size(40 * KiB, 40 * KiB) == 40 * KiB);
    CHECK(snap_cache_size(20 * MiB, 24 * MiB) == 24 * MiB);
    // Nothing of the form m x 2^k (m = 1, 3, 5, 7) inside: the nearest such size.
    CHECK(snap_cache_size(9 * KiB, 9 * KiB + 100) == 10 * KiB);
}

TEST_CASE("a gradual knee is found but marked uncertain", "[probe]") {
    // L2 latency climbs from 4 to 13 ns between 512 KiB and 1.5 MiB, as it does in a VM
    // whose host pages scatter over the L2 sets, before an L3 plateau.
    auto curve = staircase({{32 * KiB, 1}, {512 * KiB, 4}, {8 * MiB, 13}}, 120);
    for (auto& p : curve)
        if (p.x > 512 * KiB && p.x < 1536 * KiB)
            p.ns = 4 * std::pow(13.0 / 4, std::log2(double(p.x) / (512 * KiB)) / std::log2(3.0));
    const auto h = find_levels(curve);
    REQUIRE(h.caches.size() == 3);
    CHECK(h.caches[0].certain);
    CHECK_FALSE(h.caches[1].certain);
    CHECK_THAT(h.caches[1].why, Catch::Contains("gradual"));
    CHECK(h.caches[1].size_bytes >= 512 * KiB);
    CHECK(h.caches[1].size_bytes <= 1536 * KiB);
    CHECK(h.caches[2].size_bytes == 8 * MiB);
}

TEST_CASE("noise around a knee makes the level uncertain", "[probe]") {
    auto noisy = staircase({{32 * KiB, 1}, {512 * KiB, 4}}, 100);
    at(noisy, 640 * KiB).spread = 0.8;  // the samples at the knee disagreed widely
    const auto h1 = find_levels(noisy);
    REQUIRE(h1.caches.size() == 2);
    CHECK(h1.caches[0].certain);
    CHECK_FALSE(h1.caches[1].certain);
    CHECK_THAT(h1.caches[1].why, Catch::Contains("noisy"));

    // Past the knee the curve dips back below the midpoint for a point.
    auto dip = staircase({{32 * KiB, 1}, {512 * KiB, 4}}, 100);
    at(dip, 768 * KiB).ns = 60;
    at(dip, 896 * KiB).ns = 10;
    at(dip, 1024 * KiB).ns = 90;
    const auto h2 = find_levels(dip);
    REQUIRE(h2.caches.size() == 2);
    CHECK_FALSE(h2.caches[1].certain);
}

TEST_CASE("a single disturbed sample on a plateau is not a knee", "[probe]") {
    auto curve = staircase({{32 * KiB, 1}, {512 * KiB, 4}}, 100);
    at(curve, 128 * KiB).ns = 40;  // an interrupt landed in every sample of this point
    const auto h = find_levels(curve);
    REQUIRE(h.caches.size() == 2);
    CHECK(h.caches[1].size_bytes == 512 * KiB);
    CHECK(h.caches[1].certain);
}

TEST_CASE("a curve that ends inside a cache has no memory level", "[probe]") {
    const auto h = find_levels(staircase({{32 * KiB, 1}, {512 * KiB, 4}}, 15, 4 * MiB));
    REQUIRE(h.caches.size() == 3);
    CHECK_FALSE(h.memory);
    CHECK(h.caches[2].size_bytes == 0);
    CHECK_FALSE(h.caches[2].certain);
}

TEST_CASE("the line size is the first boundary whose straddling loads are slow", "[probe]") {
    const auto split = [](std::size_t line, double jitter = 0) {
        std::vector<LatencyPoint> points;
        for (std::size_t b = 8; b <= 2048; b *= 2)
            points.push_back({b, (b >= line ? 1.8 : 1.2) + jitter * double(b % 3), 0.01});
        return points;
    };
    CHECK(find_line_size(split(64)).line_bytes == 64);
    CHECK(find_line_size(split(64)).certain);
    CHECK(find_line_size(split(128)).line_bytes == 128);
    CHECK(find_line_size(split(64, 0.02)).line_bytes == 64);

    auto flat = split(64);
    for (auto& p : flat) p.ns = 1.2;
    CHECK(find_line_size(flat).line_bytes == 0);
    CHECK_FALSE(find_line_size(flat).certain);

    auto muddled = split(64);
    muddled[1].ns = 1.8;  // a 16 B boundary as slow as a line split: no clean step
    CHECK_FALSE(find_line_size(muddled).certain);
}

TEST_CASE("the L1d ways are the lines one set holds before the chase slows", "[probe]") {
    std::vector<LatencyPoint> same_set;
    for (std::size_t n = 1; n <= 24; ++n) same_set.push_back({n, n <= 12 ? 1.15 : 4.0, 0.01});
    CHECK(find_ways(same_set).ways == 12);
    CHECK(find_ways(same_set).certain);

    same_set[17].ns = 1.15;  // 18 lines fast again: not a clean step
    CHECK_FALSE(find_ways(same_set).certain);

    for (auto& p : same_set) p.ns = 1.15;
    CHECK(find_ways(same_set).ways == 0);
}

TEST_CASE("L1d ways found cleanly are uncertain when the L1d size is, and the table says which", "[probe]") {
    ProbeLevel l1;
    l1.level = 1;
    l1.certain = false;
    const WaysEstimate judged = judge_l1d_ways({12, true, ""}, &l1);
    CHECK(judged.ways == 12);
    CHECK_FALSE(judged.certain);
    CHECK_THAT(judged.why, Catch::Contains("L1d size"));
    // A step that was not clean keeps its own reason; a certain L1d leaves a clean step certain.
    CHECK(judge_l1d_ways({12, false, "18 lines were as fast as one again"}, &l1).why ==
          "18 lines were as fast as one again");
    l1.certain = true;
    CHECK(judge_l1d_ways({12, true, ""}, &l1).certain);

    ProbeResult r;
    r.l1d_ways = 12;
    r.l1d_ways_why = judged.why;
    const auto back = parse_probe_result(to_json_text(r));
    REQUIRE(back);
    CHECK(back->l1d_ways_why == judged.why);
}

TEST_CASE("K-best reports the spread a noisy curve point is judged by", "[probe]") {
    std::vector<double> script{130.0, 100.0, 101.0, 100.5, 999.0};
    std::size_t next = 0;
    KBestResult agree = k_best({3, 0.02, 10}, [&] { return script[next++]; });
    CHECK(agree.samples == 4);
    CHECK(agree.best == 100);
    CHECK(agree.converged);
    CHECK(agree.spread == Approx(0.01));

    std::vector<double> noisy_script{100.0, 150.0, 200.0, 250.0, 300.0};
    next = 0;
    KBestResult noisy = k_best({3, 0.02, 5}, [&] { return noisy_script[next++]; });
    CHECK(noisy.samples == 5);
    CHECK_FALSE(noisy.converged);
    CHECK(noisy.spread == Approx(1.0));  // third fastest 200 over fastest 100
}

TEST_CASE("a probe result survives the round trip through its file", "[probe]") {
    ProbeResult r;
    r.line_bytes = 64;
    r.line_certain = true;
    r.reported_line_bytes = 64;
    r.levels = {{1, 48 * KiB, 1.15, 4.0, true, "", 48 * KiB, "cpuid 0x80000005", true},
                {2, 768 * KiB, 4.0, 14.0, false, "gradual knee", MiB, "cpuid 0x80000006", true}};
    r.levels[1].reported_shared_cpus = 2;
    r.memory_latency_ns = 150;
    r.l1d_ways = 12;
    r.clock = "TSC";
    r.latency_curve = {{4096, 1.15, 0.01}};
    const std::string path = scratch("roundtrip.json");
    REQUIRE(save_probe_result(r, path).empty());
    const auto loaded = load_probe_result(path);
    REQUIRE(loaded);
    CHECK(loaded->line_bytes == 64);
    REQUIRE(loaded->levels.size() == 2);
    CHECK(loaded->level(1)->size_bytes == 48 * KiB);
    CHECK(loaded->level(1)->certain);
    CHECK(loaded->level(2)->size_bytes == 768 * KiB);
    CHECK_FALSE(loaded->level(2)->certain);
    CHECK(loaded->level(2)->reported_bytes == MiB);
    CHECK(loaded->level(2)->reported_shared_cpus == 2);
    CHECK(loaded->memory_latency_ns == Approx(150));
    CHECK(loaded->l1d_ways == 12);
    CHECK(loaded->latency_curve.size() == 1);

    CHECK_FALSE(load_probe_result(scratch("missing.json")));
    CHECK_FALSE(parse_probe_result("not json"));
    CHECK_FALSE(parse_probe_result(R"({"format": "something-else/1"})"));
    CHECK_FALSE(parse_probe_result(R"({"format": "perflab-cacheprobe/1"})"));
}

TEST_CASE("cacheprobe measures a 64 B line and the L1d size on this machine", "[probe][machine]") {
    // Every x86-64 part shipped has 64 B lines; the course machines report 48 KiB L1d
    // (cpuid 0x80000005), and an L1d knee is the sharpest on the curve: ideal LRU
    // within 1.5x is one grid step either side of the true size, with room to spare.
    const CacheLevel* l1 = read_machine_info(last_allowed_cpu()).l1d();  // the CPU cacheprobe pins to
    const std::size_t expected_l1 = l1 && l1->plausible && l1->size_bytes ? l1->size_bytes : 48 * KiB;
    // The machine is shared: a neighbour can disturb a run, and the probe must then
    // flag the figure uncertain rather than report a wrong one as certain. Whether
    // the analysis finds the right figures on a clean curve is checked on simulated
    // latencies (the tests above), not here.
    const Run r = run(bin("cacheprobe") + " --quick --no-save --json");
    REQUIRE(r.status == 0);
    const auto result = parse_probe_result(r.output);
    REQUIRE(result);
    INFO(r.output.substr(0, 2000));
    CHECK((result->line_bytes == 64 || !result->line_certain));
    const ProbeLevel* measured_l1 = result->level(1);
    const bool l1_ok = measured_l1 && measured_l1->size_bytes * 3 >= expected_l1 * 2 &&
                       measured_l1->size_bytes * 2 <= expected_l1 * 3;
    CHECK((l1_ok || !measured_l1 || !measured_l1->certain));
}

TEST_CASE("cacheprobe saves its result where the driver loads it", "[probe][machine]") {
    const std::string path = scratch("cacheprobe.json");
    std::filesystem::remove(path);
    const Run r = run(bin("cacheprobe") + " --quick --save " + path);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.output, Catch::Contains("line size") && Catch::Contains("clock: "));
    // Beside each reported size, whether that cache is a CPU's own or shared, where the OS/CPUID says.
    for (const CacheLevel& c : read_machine_info(last_allowed_cpu()).caches) {
        if (c.shared_cpus <= 0) continue;
        INFO("L" << c.level << " shared by " << c.shared_cpus);
        const std::string said = c.shared_cpus == 1 ? ", private to one logical CPU"
                                                    : ", shared by " + std::to_string(c.shared_cpus) + " logical CPUs";
        CHECK_THAT(r.output, Catch::Contains(c.source + (c.plausible ? "" : ", implausible") + said + ")"));
    }
    const auto loaded = load_probe_result(path);
    REQUIRE(loaded);
    CHECK_FALSE(loaded->levels.empty());
    CHECK(loaded->line_bytes > 0);
}

TEST_CASE("mountain --quick writes the full grid and, with gnuplot, a PNG", "[probe][machine]") {
    const std::string csv = scratch("mountain.csv"), png = scratch("mountain.png");
    std::filesystem::remove(csv);
    std::filesystem::remove(png);
    const Run r = run(bin("mountain") + " --quick --csv " + csv + " --png " + png);
    INFO(r.output);
    REQUIRE(r.status == 0);

    // --quick: sizes 16 KiB .. 16 MiB by factors of 2 (11 rows), strides 1 .. 8.
    std::ifstream in(csv);
    std::string line;
    REQUIRE(std::getline(in, line));
    CHECK(line == "size_bytes,s1,s2,s3,s4,s5,s6,s7,s8");
    std::vector<std::size_t> sizes;
    while (std::getline(in, line)) {
        std::stringstream fields(line);
        std::string field;
        std::vector<double> values;
        while (std::getline(fields, field, ',')) values.push_back(std::stod(field));
        REQUIRE(values.size() == 9);
        sizes.push_back(std::size_t(values[0]));
        for (std::size_t i = 1; i < values.size(); ++i) CHECK(values[i] > 0);
    }
    CHECK(sizes == size_grid(16 * KiB, 16 * MiB, 1));

    if (run("command -v gnuplot").status == 0) {
        std::ifstream image(png, std::ios::binary);
        char signature[8] = {};
        image.read(signature, 8);
        CHECK(std::string(signature, 8) == "\x89PNG\r\n\x1a\n");
    } else {
        CHECK_THAT(r.output, Catch::Contains("apt-get install gnuplot-nox"));
    }
}

TEST_CASE("mountain makes the directory of the PNG it was asked for, as of the CSV", "[probe][machine]") {
    if (run("command -v gnuplot").status != 0) PERFLAB_SKIP("no PNG without gnuplot: apt-get install gnuplot-nox");
    const std::string dir = scratch("mountain-new");
    std::filesystem::remove_all(dir);
    const std::string png = dir + "/plots/mountain.png";
    const Run r = run(bin("mountain") + " --quick --csv " + dir + "/csv/mountain.csv --png " + png);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(std::filesystem::is_regular_file(png));
}

TEST_CASE("mountain draws to a PNG whose name has quotes in it, and only there", "[probe][machine]") {
    if (run("command -v gnuplot").status != 0) PERFLAB_SKIP("no PNG without gnuplot: apt-get install gnuplot-nox");
    const std::string dir = scratch("mountain-quotes");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string png = dir + "/Bob's \"mountain\".png";
    // The shell sees '...Bob'\''s "mountain".png': a ' and two " reach mountain as they are.
    const Run r = run(bin("mountain") + " --quick --csv " + dir + "/m.csv --png '" + dir + "/Bob'\\''s \"mountain\".png'");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(std::filesystem::is_regular_file(png));
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    CHECK(files == 2);  // the CSV and the PNG: no stray file cut from the name at its quote
}

TEST_CASE("both tools answer --version and reject a bad flag in one line", "[probe]") {
    for (const std::string tool : {"cacheprobe", "mountain"}) {
        const Run version = run(bin(tool) + " --version");
        CHECK(version.status == 0);
        CHECK_THAT(version.output, Catch::Contains(tool));
        const Run bad = run(bin(tool) + " --no-such-flag");
        CHECK(bad.status != 0);
        CHECK(std::count(bad.output.begin(), bad.output.end(), '\n') == 1);
        CHECK_THAT(bad.output, Catch::StartsWith(tool + ": "));
    }
}
