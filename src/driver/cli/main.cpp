// The driver: options -> plan -> measurements -> results -> reports.
//
// main() sets up one session (hosts, plan, clock, tools) and dispatches to a
// mode: run (check, time, report in every requested format), calibrate (print
// a baseline) or explain (diagnose). Reports only read results; they are fed by
// the runner's observer through one Reporter interface.
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/affinity.hpp"
#include "common/atomic_file.hpp"
#include "common/clock.hpp"
#include "common/cpu_activity.hpp"
#include "common/executable_dir.hpp"
#include "common/machine.hpp"
#include "driver/core/baseline.hpp"
#include "driver/core/build_state.hpp"
#include "driver/core/cache_clear.hpp"
#include "driver/core/host_output.hpp"
#include "driver/core/hosts.hpp"
#include "driver/core/input_generator.hpp"
#include "driver/core/plan.hpp"
#include "driver/core/registry.hpp"
#include "driver/core/runner.hpp"
#include "driver/core/scoring.hpp"
#include "driver/core/student.hpp"
#include "driver/evidence/counter_sampling.hpp"
#include "driver/evidence/simulation.hpp"
#include "driver/explain/explain.hpp"
#include "driver/model/model_run.hpp"
#include "driver/report/compare.hpp"
#include "driver/report/compare_reporter.hpp"
#include "driver/report/host_printed.hpp"
#include "driver/report/html.hpp"
#include "driver/report/report.hpp"
#include "options.hpp"

namespace perflab {
namespace {

constexpr unsigned kHostStartFloorSeconds = 5;
// Long enough to see who else wants each CPU, short beside the run.
constexpr std::chrono::milliseconds kCpuChoiceWindow{200};

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

// The kernel hosts: the student's (built from kernels.c by make) and the driver's
// own, both beside the driver unless the options name them.
std::pair<HostLaunch, HostLaunch> host_launches(const Options& opt) {
    HostLaunch student, reference;
    student.executable = opt.host.value_or(executable_dir() + "/kernel-host");
    reference.executable = opt.reference_host.value_or(executable_dir() + "/reference-host");
    // Starting a host is no kernel call: a short --timeout, meant for slow kernels,
    // must not fail a host that a loaded machine starts slowly (bubblewrap, seccomp).
    student.start_seconds = std::max(opt.timeout_seconds, kHostStartFloorSeconds);
    student.untrusted = true;
    student.output = std::make_shared<HostOutput>();
    for (HostLaunch* l : {&student, &reference}) {
        if (access(l->executable.c_str(), X_OK) != 0)
            throw HostError(fmt::format("no kernel host at '{}': run make, which builds it from kernels.c", l->executable));
        // Both hosts alike, so that the cost of a call measured on the reference host
        // (the seccomp filter's included) is the student host's too.
        if (opt.sandbox) {
            SandboxSpec box;
            box.kind = SandboxKind::kernel_host;
            l->executable = std::filesystem::absolute(l->executable).string();
            // The host alone, handed over: nothing beside it, and no path it must walk.
            box.read_only_files = {l->executable};
            box.tmpfs_bytes = 1u << 20;
            l->sandbox = box;
        }
    }
    if (opt.sandbox)
        if (auto why = sandbox_unavailable_reason()) throw HostError("--sandbox: " + *why);
    return {student, reference};
}

// A report that could not be written at the end would waste the whole run: it is
// tried before anything is measured.
std::optional<std::string> unwritable(const std::optional<std::string>& path, const char* what) {
    if (!path) return std::nullopt;
    auto why = why_unwritable(*path);
    if (!why) return std::nullopt;
    return fmt::format("cannot write the {} to '{}' ({}): name a file in a directory you can write", what, *path, *why);
}

// Everything a mode needs, set up once: what was asked, the hosts, the plan, and
// the tools the runner measures with. `run` holds the context (machine, clock,
// configuration, team) before any kernel is measured.
struct Session {
    Session(const Options& o, const char* a) : opt(o), argv0(a) {}
    const Options& opt;
    const char* argv0;
    Pinning pin;
    std::shared_ptr<HostOutput> host_output;  // what kernels.c prints, whichever host start printed it
    std::optional<KernelHosts> hosts;
    Registry registry;
    StudentFile student;
    RunResult run;
    ScoringPolicy policy = default_policy();
    Plan plan;
    std::optional<Plan> grade_plan;  // --explain: rotate()/smooth() as ./driver scores them, when its own timings are not
    std::unique_ptr<Clock> clock;
    HostTiming timing;
    std::unique_ptr<PmuHostCounters> counters;
    std::unique_ptr<InputGenerator> inputs;
    std::optional<CachegrindGeometry> geometry;
    std::unique_ptr<ModelRunner> model;
    std::unique_ptr<CacheClearer> clearer;
    std::optional<nlohmann::json> old_report;  // --compare

    MeasuringTools tools() { return {*hosts, timing, *clearer, *inputs, counters.get()}; }
};

// The dimensions ./driver scores at: --dims when given, else the policy's, else the lab's.
Options with_grade_dims(Options o, const ScoringPolicy& policy) {
    if (o.dims_chosen) return o;
    if (!policy.rotate.dims.empty()) o.rotate_dims = policy.rotate.dims;
    if (!policy.smooth.dims.empty()) o.smooth_dims = policy.smooth.dims;
    return o;
}

// What ./driver scores, planned as it plans it: rotate()/smooth() alone, at its dims.
Plan grade_plan(const Options& opt, const Session& s, const std::optional<BaselineFile>& baseline, bool model) {
    Options o = with_grade_dims(opt, s.policy);
    o.explain = false;
    o.variants.clear();
    o.model = model;
    Plan plan = make_plan(o, s.registry, s.student, baseline);
    for (auto& kp : plan.kernels)
        std::erase_if(kp.variants, [&](const Variant& v) { return v.address != kp.graded_address; });
    return plan;
}

// Sets the session up; returns the exit status when the driver must stop here
// (an error, or -q after the dump).
std::optional<int> prepare(Session& s) {
    const Options& opt = s.opt;
    const char* argv0 = s.argv0;

    // Kernels are timed on one CPU, which the driver and its hosts share (the
    // hosts inherit the pinning): pin before any host starts, to the CPU others want
    // least just now (drivers that all took the same one timed each other).
    std::optional<int> cpu = opt.cpu;
    if (!cpu && !opt.quit_after_dump)
        if (const auto allowed = allowed_cpu_list(); allowed.size() > 1) {
            s.run.cpus_before = measure_cpu_busyness(allowed, kCpuChoiceWindow);
            cpu = quietest_cpu(s.run.cpus_before);
        }
    s.pin = pin_to_one_cpu(cpu);
    if (opt.cpu && s.pin.cpu < 0) return fail(argv0, s.pin.error + ": choose one from 'taskset -p $$'");

    try {
        auto [student_launch, reference_launch] = host_launches(opt);
        s.host_output = student_launch.output;
        s.hosts.emplace(student_launch, reference_launch);
        const HostRegistration& registration = s.hosts->student_registration();
        s.registry = Registry(registration);
        s.student = student_file(registration);
        // -g times rotate() and smooth() alone: what was registered does not matter there.
        if (!opt.autograder)
            for (const auto& warning : s.registry.warnings()) std::fprintf(stderr, "%s: %s\n", argv0, warning.c_str());
    } catch (const HostStartError& e) {
        fail(argv0, e.what());
        // The grader learns how the kernels file failed from the report channel, which
        // the host cannot reach, never from what the host printed (on its own pipe).
        if (opt.json_path) {
            const char* status = e.timed_out ? "timeout" : e.signal == SIGSYS ? "forbidden" : "crashed";
            try {
                write_file_atomically(*opt.json_path,
                                      nlohmann::json{{"host_failure", {{"status", status}, {"reason", e.what()}}},
                                                     {"host_output", host_printed_json(s.host_output->printed())}}
                                          .dump());
            } catch (const std::exception& w) {
                fail(argv0, w.what());
            }
        }
        return e.timed_out ? kExitHostTimedOut : kExitHostFailed;
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }

    if (opt.dump_file) {
        try {
            write_file_atomically(*opt.dump_file, function_list(s.registry));
        } catch (const std::exception& e) {
            return fail(argv0, e.what());
        }
    }
    if (opt.quit_after_dump) return 0;

    // A plain run of a driver older than its kernels.c would time the old code as if
    // the edit did nothing; --explain says so in its own findings, and -g's grader
    // has just built it.
    if (!opt.explain && !opt.calibrate && !opt.autograder)
        if (auto stale = stale_build(read_build_state(s.student.build))) {
            if (stale->refuse) return fail(argv0, stale->message);
            std::fprintf(stderr, "%s: %s\n", argv0, stale->message.c_str());
        }

    if (!opt.skip_team_check && !opt.calibrate) {
        if (s.student.team.team == "bovik") {
            std::printf("%s: Please fill in the team struct in kernels.c.\n", argv0);
            return 1;
        }
        s.run.team = s.student.team;
    }

    if (auto why = unwritable(opt.json_path, "JSON report")) return fail(argv0, *why);
    if (auto why = unwritable(opt.html_path, "HTML report")) return fail(argv0, *why);
    if (opt.compare_path) {
        try {
            s.old_report = load_old_report(*opt.compare_path);
        } catch (const CompareError& e) {
            return fail(argv0, e.what());
        }
    }

    std::optional<BaselineFile> baseline;
    try {
        if (opt.baseline_file) baseline = load_baseline(*opt.baseline_file);
        if (opt.policy_file) s.policy = load_policy(*opt.policy_file);
        Options effective = opt;
        if (opt.calibrate) effective.variants.clear();
        if (opt.explain) effective = explain_options(opt);  // explain times one dimension of its own
        else effective = with_grade_dims(effective, s.policy);
        // The grade is the model's: the student sees it without asking.
        effective.model = opt.model || s.policy.basis == Basis::model;
        s.plan = make_plan(effective, s.registry, s.student, baseline);
        // Explain's own timings are the grade's only at --dims on a timing basis.
        if (opt.explain && (!opt.dims_chosen || effective.model))
            s.grade_plan = grade_plan(opt, s, baseline, effective.model);
    } catch (const std::exception& e) {
        return fail(argv0, e.what());
    }
    s.run.machine = read_machine_info(s.pin.cpu);
    s.clock = make_default_clock();
    if (opt.clock == "cycles")
        s.run.clock_notice =
            "--clock cycles counted the driver's own core cycles, and kernels now run in a separate host: timing with "
            "the host's CPU time in TSC cycles instead";
    s.inputs = std::make_unique<InputGenerator>(s.plan.seed);
    try {
        s.timing = calibrate_host_timing(s.hosts->reference(), *s.clock);
        // --explain reads misses from the PMU where it can, and simulates them where not.
        if (s.plan.counters || s.plan.explain) {
            s.counters = std::make_unique<PmuHostCounters>(s.plan.counter_events);
            if (auto why = s.counters->try_open(s.hosts->student().pid())) {
                s.run.counters_unavailable = why->line();
                s.counters.reset();
            }
        }
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }
    if (s.plan.simulate) {
        auto g = chosen_geometry(s.plan.cache_geometry, s.run.machine);
        if (auto* err = std::get_if<SimulationError>(&g)) return fail(argv0, err->message);
        s.geometry = std::get<CachegrindGeometry>(g);
        s.run.simulation_geometry = describe_geometry(*s.geometry);
    }
    if (s.plan.model) {
        s.model = std::make_unique<ModelRunner>(s.policy.model, s.hosts->reference().launch(), s.pin.allowed);
        s.run.model = s.policy.model;
    }
    s.run.basis = s.policy.basis;
    s.clearer = std::make_unique<CacheClearer>(CacheClearer::size_for(s.run.machine));
    s.run.clock = {"host-cpu-time", s.timing.describe(), s.clock->ticks_per_second(), s.pin.cpu, s.pin.error};
    s.run.config = {s.plan.seed, s.plan.kbest, s.plan.baseline_mode, opt.autograder, s.plan.timeout_seconds,
                    s.clearer->bytes(), ""};
    // A comparison the run could not make is refused before the run is spent.
    if (s.old_report) {
        try {
            check_comparable(*s.old_report, nlohmann::json::parse(json_report(s.run)));
        } catch (const CompareError& e) {
            return fail(argv0, "--compare " + *opt.compare_path + ": " + e.what());
        }
    }
    return std::nullopt;
}

// --calibrate: the oracle's CPEs as a baseline TOML on stdout.
int calibrate_mode(Session& s) {
    Runner runner(s.plan, s.tools());
    try {
        std::fputs(calibration_toml(s.plan, runner.calibrate(), s.run).c_str(), stdout);
    } catch (const HostError& e) {
        return fail(s.argv0, e.what());
    }
    return 0;
}

// The machine model's figures of a variant just timed; a failure is said once.
void model_variant(Session& s, const Variant& v, VariantResult& vr) {
    if (!s.model || s.run.model_unavailable) return;
    const KernelHost& host = v.in_reference_host() ? s.hosts->reference() : s.hosts->student();
    if (auto err = s.model->measure(host.launch(), v.host_function(), vr)) {
        s.run.model_unavailable = err->message;
        std::fprintf(stderr, "%s: the machine model failed: %s\n", s.argv0, err->message.c_str());
    }
}

// What ./driver would score, for --explain's headline: rotate()/smooth() at the dims
// it scores at (explain's own timings when those are the grade's), scored by the
// policy. Nothing when that timing failed: the findings stand without it.
std::optional<RunResult> grade_of(Session& s, const ExplainData& data) {
    RunResult scored = s.run;
    if (s.grade_plan) {
        Runner runner(*s.grade_plan, s.tools());
        RunnerObserver observer;
        observer.measured = [&](const KernelPlan&, const Variant& v, VariantResult& vr) { model_variant(s, v, vr); };
        try {
            scored.kernels = runner.run(observer);
        } catch (const HostError& e) {
            std::fprintf(stderr, "%s: timing rotate()/smooth() for the grade failed: %s\n", s.argv0, e.what());
            return std::nullopt;
        }
    } else {
        for (const auto& k : data.kernels) scored.kernels.push_back(k.result);
    }
    score_run(scored, s.policy);
    return scored;
}

// --explain: measured and judged by the explain module; its text and JSON are its
// own. The page, when asked for, shows its findings beside the charts of the
// figures it measured, and the grade's points.
int explain_mode(Session& s) {
    ExplainData data = measure_for_explain({s.plan, s.registry, s.student, s.run, s.tools()});
    const std::optional<RunResult> grade = grade_of(s, data);
    if (grade) data.grade = grade_lines(*grade);
    const std::vector<Finding> findings = explain_checks(data);
    const std::string explain = explain_json(data, findings);
    const auto& json_path = s.opt.json_path;
    if (!json_path || *json_path != "-") std::fputs(explain_text(data, findings).c_str(), stdout);
    std::fflush(stdout);
    try {
        if (json_path) write_file_atomically(*json_path, explain);
        if (s.opt.html_path) {
            RunResult run = s.run;
            for (const auto& k : data.kernels) run.kernels.push_back(k.result);
            score_run(run, s.policy);
            // A variant's points are for what a run of the driver would time: none for a
            // function only --explain timed (unregistered, the oracle, a reference), and
            // none at all unless --dims were given (explain's one comparison dimension is
            // not what the grade is made of). The headline is the grade's.
            const bool grade_dims = s.opt.dims_chosen;
            run.total_points = grade ? grade->total_points : std::nullopt;
            for (std::size_t k = 0; k < data.kernels.size(); ++k) {
                run.kernels[k].points.reset();
                if (grade)
                    for (const auto& gk : grade->kernels)
                        if (gk.kernel == run.kernels[k].kernel) run.kernels[k].points = gk.points;
                for (std::size_t i = 0; i < run.kernels[k].variants.size(); ++i) {
                    auto& v = run.kernels[k].variants[i];
                    if (!grade_dims || (!v.graded && !data.kernels[k].registered(i))) v.points.reset();
                }
            }
            write_file_atomically(*s.opt.html_path, run_page({json_report(run), explain, std::nullopt, std::nullopt}));
        }
    } catch (const std::exception& e) {
        return fail(s.argv0, e.what());
    }
    return 0;
}

// The reports this run asked for, in the order they write at the end: the text
// (and the comparison table under it), then the files.
Reporters reporters_for(Session& s) {
    const Options& opt = s.opt;
    const bool json_to_stdout = opt.json_path && *opt.json_path == "-";
    Reporters r;
    if (!json_to_stdout) r.add(std::make_unique<TextReporter>(stdout, TextReportOptions{opt.autograder, opt.verbose, true}));
    if (s.old_report)
        r.add(std::make_unique<CompareReporter>(json_to_stdout ? stderr : stdout, *s.old_report, *opt.compare_path));
    if (opt.json_path) r.add(std::make_unique<JsonReporter>(*opt.json_path));
    if (opt.html_path) r.add(std::make_unique<HtmlReporter>(*opt.html_path, s.old_report, opt.compare_path.value_or("")));
    return r;
}

// The main job: check and time every planned variant, report in every format.
int run_mode(Session& s) {
    const char* argv0 = s.argv0;
    Reporters reports = reporters_for(s);
    reports.start(s.run);
    std::fflush(stdout);
    for (const auto& notice : {s.run.clock_notice, s.run.counters_unavailable})
        if (notice) std::fprintf(stderr, "%s: %s\n", argv0, notice->c_str());

    Runner runner(s.plan, s.tools());
    // Both hosts run by now (registration, the clock's calibration); one that dies
    // mid-run is started again under another pid and left out of the reading.
    const std::vector<pid_t> our_tasks{getpid(), s.hosts->student().pid(), s.hosts->reference().pid()};
    InterferenceMeter interference;
    interference.start(s.pin.cpu, our_tasks);
    RunnerObserver observer = observer_for(reports);
    if (s.geometry || s.model)
        observer.measured = [&](const KernelPlan&, const Variant& v, VariantResult& vr) {
            const KernelHost& host = v.in_reference_host() ? s.hosts->reference() : s.hosts->student();
            // Each is said once when it fails; the timing goes on.
            if (s.geometry && !s.run.simulation_unavailable)
                if (auto err = simulate_variant(host.executable(), v.host_function(), vr, *s.geometry)) {
                    s.run.simulation_unavailable = err->message;
                    std::fprintf(stderr, "%s: cache simulation failed: %s\n", argv0, err->message.c_str());
                }
            model_variant(s, v, vr);
        };
    try {
        s.run.kernels = runner.run(observer);
    } catch (const HostError& e) {
        return fail(argv0, e.what());
    }
    s.run.interference = interference.stop(our_tasks);
    score_run(s.run, s.policy);
    s.run.host_printed = s.host_output->printed();
    try {
        reports.finish(s.run);
    } catch (const std::exception& e) {
        return fail(argv0, e.what());
    }
    return 0;
}

int run_session(Session& s) {
    if (auto status = prepare(s)) return *status;
    if (s.opt.check_options) return 0;
    if (s.opt.calibrate) return calibrate_mode(s);
    if (s.opt.explain) return explain_mode(s);
    return run_mode(s);
}

int run_driver(int argc, char** argv) {
    ParseOutcome parsed = parse_options(argc, argv);
    if (!parsed.options) return parsed.exit_code;
    Session s{*parsed.options, argv[0]};
    const int status = run_session(s);
    // What kernels.c printed comes last, after the hosts have quit (what their
    // destructors print included), apart from everything the driver said.
    s.hosts.reset();
    std::fflush(stdout);
    if (s.host_output) std::fputs(host_printed_text(s.host_output->printed()).c_str(), stderr);
    return status;
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
