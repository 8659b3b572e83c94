// Cache-miss evidence through the real driver: the cachegrind simulation on the
// reference rotates, with the geometry given explicitly so the figures do not
// depend on this machine, and the counters' unavailable path on a VM without PMU.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/affinity.hpp"
#include "common/machine.hpp"
#include "common/probe_result.hpp"
#include "common/proc_stat.hpp"
#include "harness.hpp"
#include "pfm_events.hpp"

using namespace perflab::test;
using nlohmann::json;

namespace {

const char* kNaive = "rotate: naive, the classic loop";
const char* kBlocked = "rotate: blocked 32x32 tiles";

// D1 write misses per pixel of both reference rotates at 512, simulated.
std::pair<double, double> simulated_write_misses(const std::string& name) {
    std::string path = scratch_dir("evidence-" + name) + "/r.json";
    auto r = run({repo("driver"), "--host", repo("build/solutions-host"), "-t", "--simulate", "--cache-geometry",
                  "D1=32768,8,64:LL=1048576,16,64", "--dims", "512", "--kernel", "rotate", "--variant", kNaive,
                  "--variant", kBlocked, "--max-samples", "2", "--json", path});
    REQUIRE(r.status == 0);
    json report = json::parse(read_file(path));
    CHECK(report["simulation_geometry"].get<std::string>().rfind("D1=32768,8,64:LL=1048576,16,64", 0) == 0);
    // The text report's (sim) rows say which caches they were simulated on.
    CHECK(lines_starting_with(r.out, "Simulated caches: D1=32768,8,64:LL=1048576,16,64 (given as").size() == 1);
    double naive = -1, blocked = -1;
    for (const auto& v : report["kernels"]["rotate"]["variants"]) {
        double misses = v["dims"][0]["simulated"]["D1 wr miss/px (sim)"];
        if (v["name"] == kNaive) naive = misses;
        if (v["name"] == kBlocked) blocked = misses;
    }
    REQUIRE(naive >= 0);
    REQUIRE(blocked >= 0);
    return {naive, blocked};
}

}  // namespace

TEST_CASE("simulation: blocking cuts the naive rotate's D1 write misses, the same every run", "[driver][evidence]") {
    auto first = simulated_write_misses("first");
    // Down a column of a 512-wide image every store lands in a new line, and a
    // 32 KiB D1 cannot keep 512 lines: each store misses, dim^2 in all.
    CHECK(first.first == Approx(1.0).epsilon(0.05));
    // A 32x32 tile keeps its 32 destination lines while they fill.
    CHECK(first.second <= first.first / 4);
    auto second = simulated_write_misses("second");
    CHECK(second.first == first.first);  // deterministic: identical counts
    CHECK(second.second == first.second);
}

TEST_CASE("the driver reads cacheprobe's result beside itself, not under the working directory", "[driver][evidence]") {
    const perflab::MachineInfo machine = perflab::read_machine_info(perflab::last_allowed_cpu());  // the driver's CPU
    const perflab::CacheLevel* l1 = machine.l1d();
    REQUIRE(l1 != nullptr);
    REQUIRE(l1->line_bytes > 0);
    // A driver directory of its own, with its hosts, as a student's checkout has them.
    namespace fs = std::filesystem;
    const std::string dir = scratch_dir("evidence-probe-path"), bin = dir + "/bin";
    const fs::path built = fs::path(build_driver("tests/fixtures/kernels/fast.c")).parent_path();
    fs::create_directories(bin);
    for (const char* exe : {"driver", "kernel-host", "reference-host"}) fs::create_hard_link(built / exe, bin + "/" + exe);
    // Certain measurements of twice and four times the reported L1d (as many sets
    // more, so cachegrind can model both): the simulated D1 tells which file was read.
    auto probe_result = [&](std::size_t l1_bytes) {
        perflab::ProbeResult r;
        r.line_bytes = l1->line_bytes;
        r.line_certain = true;
        perflab::ProbeLevel level;
        level.level = 1;
        level.size_bytes = l1_bytes;
        level.certain = true;
        r.levels = {level};
        return perflab::to_json_text(r);
    };
    write_file(bin + "/build/cacheprobe.json", probe_result(2 * l1->size_bytes));
    write_file(dir + "/elsewhere/build/cacheprobe.json", probe_result(4 * l1->size_bytes));  // stale, not ours
    auto r = sh("cd '" + dir + "/elsewhere' && '" + bin +
                "/driver' --simulate --kernel rotate --dims 32 --max-samples 2 --variant 'rotate: Current working version'");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto simulated = lines_starting_with(r.out, "Simulated caches: ");
    REQUIRE(simulated.size() == 1);
    CHECK_THAT(simulated[0], Catch::StartsWith("Simulated caches: D1=" + std::to_string(2 * l1->size_bytes) + ",") &&
                                 Catch::Contains("measured by cacheprobe (" + bin + "/build/cacheprobe.json)"));
}

TEST_CASE("counters on a machine without a PMU: one line, the full report, the reason in JSON", "[driver][evidence]") {
    std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    std::string path = scratch_dir("evidence-nopmu") + "/r.json";
    auto r = run({exe, "--counters", "--dims", "32,64", "--max-samples", "2", "--json", path});
    REQUIRE(r.status == 0);
    json report = json::parse(read_file(path));
    if (report["counters_unavailable"].is_null()) {
        // A machine with a PMU: the rows are there and are measurements.
        for (const auto& v : report["kernels"]["rotate"]["variants"]) CHECK(v["dims"][0].contains("counters"));
        return;
    }
    std::string reason = report["counters_unavailable"];
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains(reason));
    CHECK_THAT(reason, Catch::Contains("PMU") || Catch::Contains("perf_event_paranoid"));
    CHECK_THAT(reason, Catch::Contains("--simulate") || Catch::Contains("sysctl"));
    // The timing report is complete, and no counter row pretends to a measurement.
    CHECK_THAT(r.out, Catch::Contains("Summary of Your Best Scores:"));
    CHECK(r.out.find("/px") == std::string::npos);
    for (const auto& v : report["kernels"]["rotate"]["variants"]) CHECK_FALSE(v["dims"][0].contains("counters"));
}

TEST_CASE("an unknown event name is refused by name before anything is measured", "[driver][evidence]") {
    std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    auto r = run({exe, "--counters", "--events", "perf::NO_SUCH_EVENT_XYZ", "--dims", "32", "--max-samples", "2"});
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("unknown event 'perf::NO_SUCH_EVENT_XYZ'"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
}

TEST_CASE("another CPU model's event without a PMU: the run goes on and says there is no PMU", "[driver][evidence]") {
    const auto event = event_of_an_undetected_pmu();
    REQUIRE(event);
    std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    std::string path = scratch_dir("evidence-other-pmu") + "/r.json";
    auto r = run({exe, "--events", *event, "--kernel", "rotate", "--dims", "32", "--max-samples", "2", "--json", path});
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("'" + *event + "' is an event of the "));
    if (machine_has_pmu()) {
        CHECK(r.status == 1);  // a PMU that is not this one: a mistake in the name
        return;
    }
    REQUIRE(r.status == 0);
    json report = json::parse(read_file(path));
    std::string reason = report["counters_unavailable"];
    CHECK_THAT(reason, Catch::Contains("no hardware PMU") && Catch::Contains("--simulate"));
    CHECK_THAT(r.out, Catch::Contains("Summary of Your Best Scores:"));
}

TEST_CASE("software events are counted through libpfm4 around each timed call", "[driver][evidence]") {
    std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    std::string path = scratch_dir("evidence-sw") + "/r.json";
    auto r = run({exe, "--counters", "--events", "perf::PERF_COUNT_SW_TASK_CLOCK,perf::PAGE-FAULTS", "--kernel", "rotate",
                  "--dims", "64", "--max-samples", "3", "--json", path});
    REQUIRE(r.status == 0);
    json report = json::parse(read_file(path));
    REQUIRE(report["counters_unavailable"].is_null());
    const json& counters = report["kernels"]["rotate"]["variants"][0]["dims"][0]["counters"];
    // Task clock in ns per pixel: the call took time, and less than a millisecond a pixel.
    double ns_per_px = counters["perf::PERF_COUNT_SW_TASK_CLOCK/px"];
    CHECK(ns_per_px > 0);
    CHECK(ns_per_px < 1e6);
    // The images were touched before the timed call: it takes no page fault.
    CHECK(counters["perf::PAGE-FAULTS/px"] == 0);
    CHECK_THAT(r.out, Catch::Contains("perf::PAGE-FAULTS/px\t0.00"));
}

TEST_CASE("/proc/PID/stat read from outside: a sleeper's state, a running process's, faults that grow",
          "[driver][evidence]") {
    // The driver learns from this line when a host is back asleep (so its clock can be
    // read) and how many pages it faulted: a wrong field would shift both silently.
    const auto self = perflab::read_proc_stat(getpid());
    REQUIRE(self);
    CHECK(self->state == 'R');  // reading it, we run
    const std::size_t bytes = 64 * 4096;
    auto* p = static_cast<volatile char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(p != MAP_FAILED);
    madvise(const_cast<char*>(p), bytes, MADV_NOHUGEPAGE);  // one fault a page, whatever THP says
    for (std::size_t at = 0; at < bytes; at += 4096) p[at] = 1;
    const auto after = perflab::read_proc_stat(getpid());
    REQUIRE(after);
    CHECK(after->minor_faults + after->major_faults >= self->minor_faults + self->major_faults + 64);
    munmap(const_cast<char*>(p), bytes);

    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    char state = '?';
    for (int i = 0; i < 200 && state != 'S'; ++i) {
        usleep(5000);
        if (auto s = perflab::read_proc_stat(child)) state = s->state;
    }
    CHECK(state == 'S');
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    CHECK_FALSE(perflab::read_proc_stat(child));  // gone
}
