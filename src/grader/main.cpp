// ./grader: batch grading (grade), a host-calibrated policy (calibrate), and one
// hand-in for Autolab or Gradescope.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/cli_range.hpp"
#include "common/closest_name.hpp"
#include "common/untrusted_text.hpp"
#include "common/scratch_dir.hpp"
#include "batch.hpp"
#include "batch_schedule.hpp"
#include "platforms.hpp"
#include "common/sandbox.hpp"
#include "policy_calibration.hpp"
#include "settings_check.hpp"
#include "slurm.hpp"
#include "slurm_options.hpp"
#include "static_checks.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {
namespace {
namespace fs = std::filesystem;

struct Common {
    std::optional<std::string> perflab, policy_file;
    std::string driver_args;
    GradeSettings grade;
    double memory_mib = 4096;
};

void add_common(CLI::App& app, Common& c) {
    app.add_option("--perflab", c.perflab,
                   "Directory with driver, reference-host, host-runtime.o, defs.h and the link scripts, as "
                   "make grader-bundle writes it (or $PERFLAB_HOME)")
        ->option_text("DIR");
    app.add_option("--policy", c.policy_file, "Speedup-to-points policy TOML (default: " + default_policy_summary() + ")")
        ->option_text("FILE");
    app.add_option("--driver-args", c.driver_args, "Extra driver options, e.g. \"--dims 64,128 --max-samples 5\"")
        ->option_text("ARGS");
    app.add_option("--trials", c.grade.trials, "Timed runs per hand-in; the median speedup counts (default 3)")
        ->check(in_range(1, 100));
    app.add_option("--max-trials", c.grade.max_trials,
                   "Timed runs at most while a kernel's grade is unsettled (default twice --trials)")
        ->check(in_range(1, 300));
    app.add_option("--wall-timeout", c.grade.sandbox.wall_seconds, "Seconds one driver run may take (default 600)")
        ->check(in_range(1.0, 86400.0));
    app.add_option("--cpu-seconds", c.grade.sandbox.cpu_seconds, "CPU seconds one driver run may use (default 600)")
        ->check(in_range(1, 86400));
    app.add_option("--memory", c.memory_mib, "Address space per run in MiB (default 4096)")->check(in_range(256.0, 1e7));
    app.add_option("--compile-timeout", c.grade.build.compile_seconds, "Seconds compiling may take (default 60)")
        ->check(in_range(1.0, 3600.0));
}

void finish_common(Common& c) {
    // Untrusted code never runs unsandboxed: no sandbox, no grading.
    if (auto why = sandbox_unavailable_reason()) throw std::runtime_error(*why);
    c.grade.layout = find_layout(c.perflab);
    if (c.policy_file) {
        c.grade.policy = load_policy(*c.policy_file);
        for (const auto& warning : c.grade.policy.warnings) std::fprintf(stderr, "%s\n", warning.c_str());
    }
    if (c.grade.max_trials > 0 && c.grade.max_trials < c.grade.trials)
        throw std::runtime_error(fmt::format("--max-trials {} is below --trials {}: give at least as many",
                                             c.grade.max_trials, c.grade.trials));
    std::istringstream in(c.driver_args);
    for (std::string a; in >> a;) c.grade.driver_args.push_back(a);
    c.grade.sandbox.memory_bytes = rlim_t(c.memory_mib) << 20;
}

// One hand-in outside a batch (Autolab, Gradescope): its own work directory and
// the driver's own baseline unless one is given.
Graded grade_single(const std::string& kernels, Common& c, const std::optional<std::string>& baseline) {
    const ScratchDir work("perflab-grader");
    std::set<std::string> library_names = library_symbols(c.grade.layout.driver);
    c.grade.build.library_names = &library_names;
    // An upload without a usable kernels.c is graded too: unusable, 0 points, the reason.
    return grade_handin(single_handin(fs::absolute(kernels).string()), c.grade,
                        baseline ? fs::absolute(*baseline).string() : "", work.file("handin"));
}

// grade: the options, then a local batch or a Slurm one.
struct GradeCommand {
    CLI::App* app = nullptr;
    Common opts;
    BatchSettings batch;
    SlurmSettings slurm;
    bool use_slurm = false;
    std::optional<std::string> partition, exclusive, sbatch_args;
    std::optional<std::size_t> array_limit, shard_size;
    std::optional<int> slurm_cpus, slurm_retries, slurm_time;

    void add(CLI::App& parent);
    void add_slurm_options();
    int run();
    SlurmSettings slurm_settings(const SlurmFileOptions& file);
};

void GradeCommand::add(CLI::App& parent) {
    app = parent.add_subcommand("grade", "Grade every hand-in in HANDINS into --out DIR (resumable)");
    app->add_option("HANDINS", batch.handins_dir, "Directory of ID.c, ID-kernels.c, ID/kernels.c, ID.tar(.gz)")
        ->required();
    app->add_option("--out", batch.out_dir, "Output directory")->required()->option_text("DIR");
    app->add_flag("--force", batch.force,
                  "Regrade every hand-in, also under other settings (run again after a kill, it resumes)");
    app->add_option("--recalibrate-every", batch.recalibrate_every,
                    "Score against one batch baseline, measured again every M hand-in trials (default: each hand-in's "
                    "run times the oracle in turns with its kernels)")
        ->check(in_range(1, 1000000));
    app->add_option("--baseline", batch.fixed_baseline, "A fixed baseline TOML instead of measuring one")
        ->option_text("FILE");
    app->add_option("--jobs", batch.jobs,
                    "Hand-ins graded at once under basis = \"model\" (default: one per CPU; the timing basis grades one "
                    "at a time)")
        ->check(in_range(1, 1024))->option_text("N");
    add_common(*app, opts);
    add_slurm_options();
}

void GradeCommand::add_slurm_options() {
    app->add_flag("--slurm", use_slurm, "Grade on a Slurm cluster: a job array, one hand-in (or shard) per task")
        ->group("Slurm");
    app->add_option("--partition", partition, "Slurm partition (default: the cluster's default)")
        ->option_text("P")->group("Slurm");
    app->add_option("--array-limit", array_limit, "Most array tasks running at once (default: no limit)")
        ->option_text("N")->group("Slurm");
    app->add_option("--shard-size", shard_size, "Hand-ins per array task (default 1)")
        ->check(in_range(kShardSizes.least, kShardSizes.most))->group("Slurm");
    app->add_option("--slurm-exclusive", exclusive,
                    "node: a whole node per task (default under the timing basis); cores: --slurm-cpus cores")
        ->check(CLI::IsMember({"node", "cores"}))->group("Slurm");
    app->add_option("--slurm-cpus", slurm_cpus, "CPUs per task with --slurm-exclusive cores (default 2)")
        ->check(in_range(kSlurmCpus.least, kSlurmCpus.most))->group("Slurm");
    app->add_option("--slurm-retries", slurm_retries, "Resubmissions of a failed, preempted or timed-out task (default 2)")
        ->check(in_range(kSlurmRetries.least, kSlurmRetries.most))->group("Slurm");
    app->add_option("--slurm-time", slurm_time, "Time limit per task in minutes (default: from the sandbox limits)")
        ->check(in_range(kSlurmMinutes.least, kSlurmMinutes.most))->group("Slurm");
    app->add_option("--slurm-poll", slurm.poll_seconds, "Seconds between squeue polls (default 5)")
        ->check(in_range(0.1, 3600.0))->group("Slurm");
    app->add_option("--sbatch-args", sbatch_args, "Extra sbatch options, e.g. \"--account=cs101 --qos=grading\"")
        ->option_text("ARGS")->group("Slurm");
}

// The policy file's [slurm] table, then the command line over it.
SlurmSettings GradeCommand::slurm_settings(const SlurmFileOptions& file) {
    SlurmSettings s = slurm;
    s.partition = partition.value_or(file.partition.value_or(""));
    s.array_limit = array_limit.value_or(file.array_limit.value_or(0));
    s.shard_size = shard_size.value_or(file.shard_size.value_or(1));
    // A timed grade needs the node to itself; the model's does not.
    const char* sharing = batch.grade.policy.basis == Basis::model ? "cores" : "node";
    s.exclusive_node = exclusive.value_or(file.exclusive.value_or(sharing)) == "node";
    s.cpus_per_task = slurm_cpus.value_or(file.cpus_per_task.value_or(2));
    s.retries = slurm_retries.value_or(file.retries.value_or(2));
    s.time_minutes = slurm_time.value_or(file.time_minutes.value_or(0));
    if (sbatch_args) {
        std::istringstream in(*sbatch_args);
        for (std::string a; in >> a;) s.sbatch_args.push_back(a);
    } else if (file.sbatch_args) {
        s.sbatch_args = *file.sbatch_args;
    }
    return s;
}

int GradeCommand::run() {
    // Each chooses the baseline: taken together, one would be silently ignored.
    if (batch.fixed_baseline && batch.recalibrate_every)
        throw std::runtime_error("--baseline and --recalibrate-every both choose the baseline: give one of them");
    finish_common(opts);
    batch.grade = opts.grade;
    if (batch.recalibrate_every && batch.grade.policy.basis == Basis::model)
        throw std::runtime_error("--recalibrate-every times baselines, which basis = \"model\" does not grade by: drop it");
    schedule_for(batch.grade.policy.basis, batch.jobs);  // refuses --jobs the basis cannot take, before any grading
    SlurmFileOptions file;
    if (opts.policy_file) file = read_slurm_options(*opts.policy_file);
    if (use_slurm || file.enabled) return run_slurm_batch(batch, slurm_settings(file));
    if (partition || array_limit || shard_size || exclusive || slurm_cpus || slurm_retries || slurm_time || sbatch_args)
        throw std::runtime_error("Slurm options need --slurm (or enabled = true in the policy's [slurm] table)");
    return run_batch(batch);
}

// slurm-task: run by sbatch on a node, never by hand (hidden from --help).
struct SlurmTaskCommand {
    CLI::App* app = nullptr;
    std::string batch;
    int submission = 0, task = -1;

    void add(CLI::App& parent) {
        app = parent.add_subcommand("slurm-task", "")->group("");
        app->add_option("--batch", batch)->required();
        app->add_option("--submission", submission)->required();
        app->add_option("--task", task)->required();
    }
    int run() { return run_slurm_task(batch, submission, task); }
};

struct CalibrateCommand {
    CLI::App* app = nullptr;
    Common opts;
    std::string policy_out;
    std::optional<std::string> reference;

    void add(CLI::App& parent) {
        app = parent.add_subcommand("calibrate", "Write a policy whose full marks are the reference speedups here");
        app->add_option("--out", policy_out, "Policy TOML to write")->required()->option_text("FILE");
        app->add_option("--reference-host", reference,
                        "The reference solutions' kernel host (default: build/solutions-host)")
            ->option_text("FILE");
        app->add_option("--perflab", opts.perflab, "perflab directory (or $PERFLAB_HOME)")->option_text("DIR");
        app->add_option("--driver-args", opts.driver_args, "Extra driver options")->option_text("ARGS");
        app->add_option("--policy", opts.policy_file,
                        "A policy whose basis and [model] table the written one keeps (default: the timing basis)")
            ->option_text("FILE");
    }
    int run();
};

int CalibrateCommand::run() {
    finish_common(opts);
    std::string host = reference.value_or(opts.grade.layout.solutions_host);
    if (host.empty())
        throw std::runtime_error("no reference solutions host found: build it (make build/solutions-host) or pass "
                                 "--reference-host");
    std::vector<std::string> driver = driver_command(opts.grade.layout, host);
    const ScratchDir work("perflab-calibrate");
    ScoringPolicy p = calibrate_policy(driver, opts.grade.driver_args, work.path(), opts.grade.policy);
    write_file_atomically(policy_out, policy_to_toml(p, fmt::format("Full marks at the reference speedups {}: rotate "
                                                                    "{:.2f}, smooth {:.2f}.",
                                                                    p.basis == Basis::model ? "on the model machine"
                                                                                            : "measured here",
                                                                    p.rotate.full_marks_speedup(),
                                                                    p.smooth.full_marks_speedup())));
    std::fprintf(stderr, "full marks: rotate at speedup %.2f, smooth at %.2f -> %s\n", p.rotate.full_marks_speedup(),
                 p.smooth.full_marks_speedup(), policy_out.c_str());
    return 0;
}

struct AutolabCommand {
    CLI::App* app = nullptr;
    Common opts;
    std::string kernels;
    std::optional<std::string> baseline;

    void add(CLI::App& parent) {
        app = parent.add_subcommand("autolab", "Grade one kernels.c; the last line is Autolab's score JSON");
        // Named by hand, so it must exist: a typo never grades a neighbour in its directory.
        app->add_option("KERNELS", kernels, "The hand-in: kernels.c, TEAM-kernels.c or handin.tar (any name)")
            ->required()->check(CLI::ExistingPath);
        app->add_option("--baseline", baseline, "A fixed baseline TOML")->option_text("FILE");
        add_common(*app, opts);
    }
    int run() {
        finish_common(opts);
        Graded g = grade_single(kernels, opts, baseline);
        std::fputs(g.feedback.c_str(), stdout);
        std::puts(autolab_line(g.record).c_str());
        return 0;
    }
};

struct GradescopeCommand {
    static constexpr const char* kContainer = "/autograder/submission";
    CLI::App* app = nullptr;
    Common opts;
    std::optional<std::string> submission, results, baseline;

    void add(CLI::App& parent) {
        app = parent.add_subcommand("gradescope", "Grade a Gradescope submission into results.json");
        app->add_option("--submission", submission,
                        "The hand-in: kernels.c, TEAM-kernels.c, handin.tar, or a directory holding one (default "
                        "/autograder/submission)");
        app->add_option("--results", results, "Where to write (default /autograder/results/results.json)");
        app->add_option("--baseline", baseline, "A fixed baseline TOML")->option_text("FILE");
        add_common(*app, opts);
    }
    int run();
};

int GradescopeCommand::run() {
    // Run by hand outside Gradescope's container, its defaults would write as root
    // into a /autograder of the instructor's machine: only where asked.
    const bool in_container = fs::exists(kContainer);
    if (!in_container && !submission)
        throw std::runtime_error(fmt::format("no {}: this is not a Gradescope container; give --submission FILE "
                                             "(and --results FILE to write results.json)",
                                             kContainer));
    if (!in_container && !results)
        std::fprintf(stderr, "grader: not a Gradescope container (no %s): writing no results.json; "
                     "give --results FILE to write one\n", kContainer);
    finish_common(opts);
    const std::optional<std::string> to =
        results ? results : in_container ? std::optional<std::string>("/autograder/results/results.json") : std::nullopt;
    // Before grading, so a place results.json cannot go stops the run at once. Absolute:
    // a bare results.json has a parent, the working directory, that needs no creating.
    if (to) fs::create_directories(fs::absolute(*to).parent_path());
    Graded g = grade_single(submission.value_or(kContainer), opts, baseline);
    if (to) write_file_atomically(*to, gradescope_results(g.record, opts.grade.policy, g.feedback).dump(2) + "\n");
    std::fputs(g.feedback.c_str(), stdout);
    return 0;
}

struct CheckSandboxCommand {
    CLI::App* app = nullptr;
    std::optional<std::string> perflab;

    void add(CLI::App& parent) {
        app = parent.add_subcommand("check-sandbox",
                                    "Say whether untrusted code can be sandboxed here (exit 0) or why not (exit 1)");
        app->add_option("--perflab", perflab, "perflab directory (or $PERFLAB_HOME)")->option_text("DIR");
    }
    int run();
};

int CheckSandboxCommand::run() {
    if (auto why = sandbox_unavailable_reason()) {
        std::fprintf(stderr, "sandbox unavailable: %s\n", why->c_str());
        return 1;
    }
    // What a batch does before its first hand-in, in the sandbox as a batch does it:
    // the driver's libraries listed (ldd), a trusted host linked, the driver's
    // hosts started with the default settings.
    try {
        GradeSettings defaults;
        defaults.layout = find_layout(perflab);
        library_symbols(defaults.layout.driver);
        const ScratchDir work("perflab-check-sandbox");
        check_settings(defaults, std::nullopt, work.file("settings-check"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sandbox unusable for grading: %s\n", e.what());
        return 1;
    }
    std::printf("sandbox ok: %s, programs run as uid %u outside and 65534 inside\n", bwrap_path().c_str(),
                unsigned(sandbox_outside_uid()));
    return 0;
}

// CLI11 takes an unknown first word for a stray argument ("a subcommand is required"):
// say which command was probably meant instead. True when it did.
bool refused_unknown_command(const CLI::App& app, int argc, char** argv) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
        names.push_back(sub->get_name());
    if (argc < 2 || argv[1][0] == '-' || argv[1] == std::string("slurm-task") ||
        std::find(names.begin(), names.end(), argv[1]) != names.end())
        return false;
    const auto meant = closest_name(argv[1], names);
    std::fprintf(stderr, "grader: no command '%s'%s; the commands are %s\n", visible_line(argv[1]).c_str(),
                 meant ? fmt::format(": did you mean {}?", *meant).c_str() : "",
                 fmt::format("{}", fmt::join(names, ", ")).c_str());
    return true;
}

int run(int argc, char** argv) {
    CLI::App app{"perflab grader: grades untrusted kernels.c hand-ins in a sandbox", "grader"};
    app.require_subcommand(1);
    GradeCommand grade;
    SlurmTaskCommand slurm_task;
    CalibrateCommand calibrate;
    AutolabCommand autolab;
    GradescopeCommand gradescope;
    CheckSandboxCommand check;
    grade.add(app);
    slurm_task.add(app);
    calibrate.add(app);
    autolab.add(app);
    gradescope.add(app);
    check.add(app);
    if (refused_unknown_command(app, argc, argv)) return 1;
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line, as every other refusal: CLI11's own adds a second.
        std::fprintf(stderr, "grader: %s; run 'grader --help' (or 'grader COMMAND --help') for the options\n", e.what());
        return 1;
    }
    if (*slurm_task.app) return slurm_task.run();
    if (*check.app) return check.run();
    if (*grade.app) return grade.run();
    if (*calibrate.app) return calibrate.run();
    if (*autolab.app) return autolab.run();
    return gradescope.run();
}

}  // namespace
}  // namespace perflab::grader

int main(int argc, char** argv) {
    try {
        return perflab::grader::run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
