// A driver that shares the machine: the quietest CPU chosen from /proc-like text, and
// a run that says when others were in its way. The decisions are tested on made-up
// files; the real run occupies one CPU and checks the driver took another and said so
// (never a timing).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/cpu_activity.hpp"
#include "driver/report/machine_load.hpp"
#include "harness.hpp"

using namespace perflab;
using namespace perflab::test;

namespace {

// A /proc/PID/task/TID/stat line: state and processor (field 39) as given.
std::string task_stat(const std::string& comm, char state, int cpu) {
    std::string line = "4242 (" + comm + ") " + state;
    for (int field = 4; field <= 38; ++field) line += " 0";
    return line + " " + std::to_string(cpu) + " 0 0 0 0 0\n";
}

CpuBusyness seen(int cpu, double runnable, double busy) { return {cpu, runnable, busy}; }

}  // namespace

TEST_CASE("machine load: /proc/stat lines per CPU, steal included", "[driver][machine]") {
    const std::string stat = "cpu  30 0 10 60 0 0 0 5 0 0\ncpu0 10 0 5 40 0 0 0 1 0 0\ncpu1 20 0 5 20 0 0 0 4 0 0\nintr 9\n";
    const auto j = parse_cpu_jiffies(stat);
    REQUIRE(j.size() == 2);  // the "cpu" total is no CPU
    CHECK(j.at(1).busy == 29);
    CHECK(j.at(1).steal == 4);
    CHECK(j.at(1).total == 49);
}

TEST_CASE("machine load: a runnable task's CPU, its command name with spaces and parentheses", "[driver][machine]") {
    CHECK(runnable_on(task_stat("cc1 (x) y", 'R', 1)) == 1);
    CHECK_FALSE(runnable_on(task_stat("sleepy", 'S', 0)));
    CHECK_FALSE(runnable_on("garbage"));
}

TEST_CASE("machine load: the quietest CPU is the one fewest others want", "[driver][machine]") {
    // Four busy loops on CPU 1: CPU 0, though the driver's default was the last CPU.
    const std::vector<std::vector<int>> snaps{{1, 1, 1, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 1, 0}};
    const auto before = parse_cpu_jiffies("cpu0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0\n");
    const auto after = parse_cpu_jiffies("cpu0 50 0 0 50 0 0 0 0\ncpu1 100 0 0 0 0 0 0 0\n");
    const auto cpus = cpu_busyness({0, 1}, before, after, snaps);
    REQUIRE(cpus.size() == 2);
    CHECK(cpus[0].runnable == Approx(2.0 / 3));
    CHECK(cpus[1].runnable == Approx(4.0));
    CHECK(cpus[0].busy_fraction == Approx(0.5));
    CHECK(quietest_cpu(cpus) == 0);
    // As many others on each: the less busy one; as busy too: the later CPU, as before.
    CHECK(quietest_cpu({seen(0, 1.0, 0.3), seen(1, 1.1, 0.9)}) == 0);
    CHECK(quietest_cpu({seen(0, 0.0, 0.02), seen(1, 0.0, 0.04)}) == 1);
    CHECK(quietest_cpu({seen(2, 3, 1), seen(5, 0.2, 1), seen(7, 2, 0.1)}) == 5);
    CHECK(quietest_cpu({}) == -1);
}

TEST_CASE("machine load: the report's lines say what applied and what to do", "[driver][machine]") {
    RunResult run;
    run.clock.pinned_cpu = 0;
    CHECK_FALSE(busy_line(run));
    CHECK_FALSE(cpu_choice_line(run));
    run.cpus_before = {seen(0, 0.2, 0.3), seen(1, 4.0, 1.0)};
    const auto choice = cpu_choice_line(run);
    REQUIRE(choice);
    CHECK(*choice == "Timing on CPU 0, the quietest of 2 just before the run (0.2 other tasks runnable, 30% busy; "
                     "CPU 1: 4.0 other tasks runnable, 100% busy).");
    run.interference = InterferenceMeter::Reading{0.35, 0.0, 10};
    const auto busy = busy_line(run);
    REQUIRE(busy);
    CHECK(busy->find("other tasks on CPU 0 kept this run waiting 35% of its time") != std::string::npos);
    CHECK(busy->find("hypervisor") == std::string::npos);  // only the cause that applied
    CHECK(busy->find("rerun when the machine is quieter") != std::string::npos);
    run.interference->waiting_fraction = 0.01;
    CHECK_FALSE(busy_line(run));
    // The oracle's own spread says it too, with no reading of the CPU at all.
    run.interference.reset();
    KernelResult k;
    VariantResult v;
    DimResult d;
    d.baseline_sample_cpes = {1.0, 1.5, 1.6, 1.4, 1.3};
    v.dims = {d};
    k.variants = {v};
    run.kernels = {k};
    REQUIRE(busy_line(run));
    CHECK(busy_line(run)->find("the oracle's typical sample was 40% slower than its fastest") != std::string::npos);
}

TEST_CASE("machine load: with one CPU kept busy the driver times on another, and says so", "[driver][machine]") {
    const std::vector<int> allowed = allowed_cpu_list();
    if (allowed.size() < 2) {
        WARN("one allowed CPU: nothing to choose");
        return;
    }
    const int busy_cpu = allowed.back();  // the driver's old fixed choice
    const std::string dir = scratch_dir("machine-busy");
    CommandResult r;
    {
        // Six busy loops held on that CPU: more than the scheduler can balance away.
        BusyLoops hogs(6, {busy_cpu});
        r = run({build_driver("tests/fixtures/kernels/fast.c"), "-t", "--kernel", "rotate", "--dims", "32",
                 "--max-samples", "3", "--json", dir + "/r.json"});
    }
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const auto report = nlohmann::json::parse(read_file(dir + "/r.json"));
    CHECK(report["machine"]["clock"]["pinned_cpu"] != busy_cpu);
    const auto& load = report["machine_load"];
    REQUIRE(load["cpu_choice"].is_string());
    CHECK(load["cpu_choice"].get<std::string>().find("CPU " + std::to_string(busy_cpu) + ":") != std::string::npos);
    CHECK(r.out.find(load["cpu_choice"].get<std::string>()) != std::string::npos);  // the text says it too
}
