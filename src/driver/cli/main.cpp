// The driver: options -> plan -> measurements -> results -> reports.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "common/affinity.hpp"
#include "common/atomic_file.hpp"
#include "driver/core/baseline.hpp"
#include "driver/core/cache_clear.hpp"
#include "common/clock.hpp"
#include "driver/evidence/counter_sampling.hpp"
#include "driver/explain/explain.hpp"
#include "driver/evidence/simulation.hpp"
#include "common/machine.hpp"
#include "options.hpp"
#include "driver/core/plan.hpp"
#include "driver/core/registry.hpp"
#include "driver/report/report.hpp"
#include "driver/core/runner.hpp"
#include "driver/core/scoring.hpp"
#include "driver/core/hosts.hpp"
#include "driver/core/input_generator.hpp"
#include "driver/core/student.hpp"

namespace perflab {
namespace {

// A fatal problem with what the user asked for: one line, exit status 1.
int fail(const char* argv0, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", argv0, message.c_str());
    return 1;
}

std::string calibration_toml(const Plan& plan, const std::vector<std::vector<double>>& cpes, const RunResult& run) {
    BaselineFile b;
    for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
        auto& out = plan.kernels[k].kernel == Kernel::rotate ? b.rotate : b.smooth;
        for (std::size_t i = 0; i < cpes[k].size(); ++i) out[plan.kernels[k].dims[i]] = cpes[k][i];
    }
    return baseline_to_toml(b, fmt::format("Measured on {} with {}.", run.machine.cpu_model, run.clock.description));
}

std::string exe_dir() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : p.parent_path().string();
}

// The kernel hosts: the student's (built from kernels.c by make) and the driver's
// own, both beside the driver unless the options name them.
std::pair<HostLaunch, HostLaunch> host_launches(const Options& opt) {
    HostLaunch student, reference;
    student.executable = opt.host.value_or(exe_dir() + "/kernel-host");
    reference.executable = opt.reference_host.value_or(exe_dir() + "/reference-host");
    student.start_seconds = opt.timeout_seconds;
    for (HostLaunch* l : {&student, &reference}) {
        if (access(l->executable.c_str(), X_OK) != 0)
            throw HostError(fmt::format("no kernel host at '{}': run make, which builds it from kernels.c", l->executable));
        // Both hosts alike, so that the cost of a call measured on the reference host
        // (the seccomp filter's included) is the student host's too.
        if (opt.sandbox) {
            SandboxSpec box;
            box.kind = SandboxKind::kernel_host;
            box.read_only = {std::filesystem::absolute(l->executable).parent_path().string()};
            box.tmpfs_bytes = 1u << 20;
            l->executable = std::filesystem::absolute(l->executable).string();
            l->sandbox = box;
        }
    }
    if (opt.sandbox)
        if (auto why = sandbox_unavailable_reason()) throw HostError("--sandbox: " + *why);
    return {student, reference};
}

int run_driver(int argc, char** argv) {
    ParseOutcome parsed = parse_options(argc, argv);
    if (!parsed.options) return parsed.exit_code;
    const Options& opt = *parsed.options;
    const char* argv0 = argv[0];

    // Kernels are timed on one CPU, which the driver and its hosts share (the
    // hosts inherit the pinning): pin before any host starts.
    Pinning pin = pin_to_one_cpu(opt.cpu);
    if (opt.cpu && pin.cpu < 0) return fail(argv0, pin.error + ": choose one from 'taskset -p $$'");

    std::optional<KernelHosts> hosts;
    Registry registry;
    StudentFile student;
    try {
        auto [student_launch, reference_launch] = host_launches(opt);
        hosts.emplace(student_launch, reference_launch);
        const HostRegistration& registration = hosts->student_registration();
        registry = Registry(registration);
        student = student_file(registration);
    } catch (const HostStartError& e) {
        fail(argv0, e.what());
        return e.timed_out ? kExitHostTimedOut : kExitHostFailed;
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }

    if (opt.dump_file) {
        try {
            write_file_atomically(*opt.dump_file, function_list(registry));
        } catch (const std::exception& e) {
            return fail(argv0, e.what());
        }
    }
    if (opt.quit_after_dump) return 0;

    RunResult run;
    if (!opt.skip_team_check && !opt.calibrate) {
        if (student.team.team == "bovik") {
            std::printf("%s: Please fill in the team struct in kernels.c.\n", argv0);
            return 1;
        }
        run.team = student.team;
    }

    // A report that could not be written at the end would waste the whole run.
    if (opt.json_path && *opt.json_path != "-") {
        auto dir = std::filesystem::absolute(*opt.json_path).parent_path();
        if (!std::filesystem::is_directory(dir) || access(dir.c_str(), W_OK) != 0)
            return fail(argv0, fmt::format("cannot write the JSON report to '{}': {} is not a writable directory",
                                           *opt.json_path, dir.string()));
    }

    std::optional<BaselineFile> baseline;
    ScoringPolicy policy = default_policy();
    Plan plan;
    try {
        if (opt.baseline_file) baseline = load_baseline(*opt.baseline_file);
        if (opt.policy_file) policy = load_policy(*opt.policy_file);
        Options effective = opt;
        if (opt.calibrate) effective.variants.clear();
        if (opt.explain) effective = explain_options(opt);
        plan = make_plan(effective, registry, student, baseline);
    } catch (const std::exception& e) {
        return fail(argv0, e.what());
    }
    run.machine = read_machine_info();
    std::unique_ptr<Clock> clock = make_default_clock();
    if (opt.clock == "cycles")
        run.clock_notice =
            "--clock cycles counted the driver's own core cycles, and kernels now run in a separate host: timing with "
            "the host's CPU time in TSC cycles instead";
    HostTiming timing;
    std::unique_ptr<PmuHostCounters> counters;
    InputGenerator inputs(plan.seed);
    try {
        timing = calibrate_host_timing(hosts->reference(), clock->ticks_per_second());
        // --explain reads misses from the PMU where it can, and simulates them where not.
        if (opt.counters || opt.explain) {
            counters = std::make_unique<PmuHostCounters>(opt.events);
            if (auto why = counters->try_open(hosts->student().pid())) {
                run.counters_unavailable = why->line();
                counters.reset();
            }
        }
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }
    std::optional<CachegrindGeometry> geometry;
    if (opt.simulate) {
        auto g = opt.cache_geometry ? parse_cache_geometry(*opt.cache_geometry) : simulation_geometry(run.machine);
        if (auto* err = std::get_if<SimulationError>(&g)) return fail(argv0, err->message);
        geometry = std::get<CachegrindGeometry>(g);
        run.simulation_geometry = describe_geometry(*geometry);
    }
    CacheClearer clearer(CacheClearer::size_for(run.machine));
    run.clock = {"host-cpu-time", timing.describe(), clock->ticks_per_second(), pin.cpu, pin.error};
    run.config = {plan.seed, plan.kbest, plan.baseline_mode, opt.autograder, plan.timeout_seconds, clearer.bytes(), ""};
    MeasuringTools tools{*hosts, timing, clearer, inputs, counters.get()};
    if (opt.explain) return run_explain({opt, plan, registry, student, run, tools}, argv0);

    const bool json_to_stdout = opt.json_path && *opt.json_path == "-";
    const bool text = !json_to_stdout && !opt.calibrate;
    TextReport report(stdout, {opt.autograder, opt.verbose, true});
    if (text) report.header(run);
    std::fflush(stdout);

    for (const auto& notice : {run.clock_notice, run.counters_unavailable})
        if (notice) std::fprintf(stderr, "%s: %s\n", argv0, notice->c_str());

    Runner runner(plan, tools);
    RunnerObserver observer;
    if (text) {
        observer.kernel_started = [&](const KernelResult& k) { report.kernel_started(k); };
        observer.variant_done = [&](const KernelResult& k, const VariantResult& v) {
            report.variant(k, v);
            std::fflush(stdout);
        };
    }
    if (geometry)
        observer.measured = [&](const KernelPlan&, const Variant& v, VariantResult& vr) {
            if (run.simulation_unavailable) return;  // said once; the timing goes on
            const KernelHost& host = v.in_reference_host() ? hosts->reference() : hosts->student();
            if (auto err = simulate_variant(host.executable(), v.host_function(), vr, *geometry)) {
                run.simulation_unavailable = err->message;
                std::fprintf(stderr, "%s: cache simulation failed: %s\n", argv0, err->message.c_str());
            }
        };
    try {
        if (opt.calibrate) {
            std::fputs(calibration_toml(plan, runner.calibrate(), run).c_str(), stdout);
            return 0;
        }
        run.kernels = runner.run(observer);
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }
    score_run(run, policy);
    if (text) {
        report.summary(run);
        std::fflush(stdout);
    }
    if (opt.json_path) {
        try {
            write_file_atomically(*opt.json_path, json_report(run));
        } catch (const std::exception& e) {
            return fail(argv0, e.what());
        }
    }
    return 0;
}

}  // namespace
}  // namespace perflab

int main(int argc, char** argv) {
    try {
        return perflab::run_driver(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: out of memory: use smaller --dims\n", argv[0]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", argv[0], e.what());
    }
    return 2;
}
