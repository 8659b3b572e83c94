#include "options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/cli_range.hpp"
#include "common/executable_dir.hpp"
#include "common/perf_counters.hpp"
#include "driver/core/scoring.hpp"
#include "driver/evidence/cachegrind.hpp"

namespace perflab {
namespace {

constexpr const char* kVersion = "perflab driver 1.0";

void print_classic_usage(const char* argv0) {
    std::fprintf(stderr, "Usage: %s [-hqg] [-f <func_file>] [-d <dump_file>]\n", argv0);
}

CLI::Validator dimension_range() { return in_range(1, kMaxDim); }

// An instructor can build a handout whose driver uses the grading host's baseline
// and policy by default (make handout BASELINE=... POLICY=...): the files sit
// beside the driver, named at compile time.
void apply_baked_defaults([[maybe_unused]] Options& o, [[maybe_unused]] bool measured_baseline_requested,
                          [[maybe_unused]] bool policy_given) {
#ifdef PERFLAB_DEFAULT_BASELINE
    if (!o.baseline_file && !measured_baseline_requested && !o.calibrate)
        o.baseline_file = executable_dir() + "/" + PERFLAB_DEFAULT_BASELINE;
#endif
#ifdef PERFLAB_DEFAULT_POLICY
    if (!policy_given) o.policy_file = executable_dir() + "/" + PERFLAB_DEFAULT_POLICY;
#endif
}

}  // namespace

std::string version_string() { return kVersion; }

ParseOutcome parse_options(int argc, char** argv) {
    Options o;
    CLI::App app{"perflab driver: checks, times and reports the rotate and smooth kernels of kernels.c", "driver"};
    app.set_help_flag();  // -h keeps its classic meaning; --help is ours
    bool classic_help = false, long_help = false, version = false, classic_dims = false;
    std::vector<int> dims;

    app.add_flag("-h", classic_help, "Print the classic usage line on stderr and exit with status 1");
    app.add_flag("--help", long_help, "Print this help and exit");
    app.add_flag("--version", version, "Print the version and exit");
    app.add_flag("-q", o.quit_after_dump, "Quit after writing the dump file (-d)");
    app.add_flag("-g", o.autograder, "Autograder mode: time only rotate() and smooth(), end with a bestscores: line");
    app.add_flag("-t", o.skip_team_check, "Skip the team-name check");
    app.add_option("-f", o.func_file, "Time only the variants listed in FILE (lines R:<description> / S:<description>)")
        ->option_text("FILE");
    app.add_option("-d", o.dump_file, "Write every registered variant to FILE as R:/S: lines")->option_text("FILE");
    app.add_option("-s,--seed", o.seed,
                   "Derive the images from SEED, for a run that repeats exactly (default: a secret key per run)")
        ->option_text("SEED");

    auto* dims_opt = app.add_option("--dims", dims,
                                    fmt::format("Dimensions for both kernels (default {})", fmt::join(kLabDims, ",")))
                         ->delimiter(',')
                         ->check(dimension_range())
                         ->option_text("D1,D2,...");
    app.add_flag("--classic-dims", classic_dims, "The old handout's dimensions: rotate 64..1024, smooth 32..512")
        ->excludes(dims_opt);
    std::string kernel;
    app.add_option("--kernel", kernel, "Only this kernel")->check(CLI::IsMember({"rotate", "smooth"}))->option_text("rotate|smooth");
    app.add_option("--variant", o.variants,
                   "Only the variant with this description, or this name (the text before its first ':'); repeatable")
        ->option_text("NAME");
    app.add_option("--json", o.json_path, "Also write the JSON report to FILE ('-' for stdout)")->option_text("FILE");
    app.add_option("--html", o.html_path, "Also write a self-contained HTML page of the run (charts, samples, machine)")
        ->option_text("FILE");
    auto* compare_opt = app.add_option("--compare", o.compare_path,
                   "Compare this run with an earlier --json report or --html page of the same machine: per variant and "
                   "dim, faster, slower or within noise, and the least change each row resolves")
        ->option_text("OLD.json|OLD.html");
    app.add_option("--k", o.kbest.k, "K of the K-best timing scheme")->check(in_range(1, 100))->capture_default_str();
    app.add_option("--epsilon", o.kbest.epsilon, "Agreement the K fastest samples need")
        ->check(in_range(0.0, 1.0))
        ->capture_default_str();
    app.add_option("--max-samples", o.kbest.max_samples, "Samples at most per measurement")
        ->check(in_range(1, 10000))
        ->capture_default_str();
    app.add_option("--ratio-tolerance", o.kbest.ratio_tolerance,
                   "Beside the oracle, sample until the speedup's 95% interval is within this fraction")
        ->check(in_range(0.0, 1.0))
        ->capture_default_str();
    auto* baseline_opt = app.add_option("--baseline", o.baseline_file, "Fixed baseline CPEs from a TOML file (see --calibrate)")
        ->option_text("FILE");
    app.add_flag("--check-options", o.check_options,
                 "Check the options, the baseline and the policy and start the kernel host, then exit 0 without timing");
    app.add_flag("--calibrate", o.calibrate, "Measure the naive oracle and print a baseline TOML file")
        ->excludes(compare_opt);
    auto* policy_opt =
        app.add_option("--policy", o.policy_file,
                       "Speedup-to-points policy (TOML) for the Score line (built in: " + default_policy_summary() + ")")->option_text("FILE");
    bool measured_baseline = false;
    app.add_flag("--measured-baseline", measured_baseline,
                 "Measure the baseline in this run even where one is built in")->excludes(baseline_opt);
    app.add_flag("-v,--verbose", o.verbose, "Print the clock, CPU, caches and every sample count");
    app.add_flag("--speed-of-light", o.speed_of_light, "Also time a memcpy of the image (never scored)");
    app.add_option("--timeout", o.timeout_seconds,
                   "Seconds one kernel call may take before it is stopped (a host gets at least 5 to start)")
        ->check(in_range(1u, 3600u))
        ->capture_default_str();
    app.add_option("--cpu", o.cpu, "Pin to this CPU while timing (default: the last allowed CPU)");
    app.add_flag("--counters", o.counters, "Add hardware counter rows (libpfm4) per variant and dimension");
    app.add_option("--events", o.events, "libpfm4 event names to count (implies --counters)")
        ->delimiter(',')
        ->option_text("A,B,...");
    app.add_option("--clock", o.clock,
                   "Cycle source: tsc; cycles is accepted but still times in TSC cycles (kernels run in their own host)")
        ->check(CLI::IsMember({"tsc", "cycles"}));
    app.add_flag("--simulate", o.simulate, "Simulate D1/LL misses per pixel with cachegrind");
    app.add_flag("--model", o.model,
                 "Also give each variant's speedup and points on the policy's model machine, the same on every run "
                 "(docs/model.md); always on when the policy's basis is \"model\"");
    app.add_option("--cache-geometry", o.cache_geometry,
                   "Cache geometry to simulate (implies --simulate), D1=size,assoc,line:LL=...")
        ->option_text("SPEC");
    app.add_flag("--explain", o.explain, "Diagnose why a speedup is what it is")->excludes(compare_opt);
    app.add_option("--host", o.host, "The kernel host built from kernels.c (default: kernel-host beside the driver)")
        ->option_text("FILE");
    app.add_option("--reference-host", o.reference_host,
                   "The driver's own host for the oracle and references (default: reference-host beside the driver)")
        ->option_text("FILE");
    app.add_flag("--sandbox", o.sandbox,
                 "Run the kernel host in a bubblewrap sandbox: no files, no network, no processes (the grader's way)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "%s: %s; run '%s --help' for the options\n", argv[0], e.what(), argv[0]);
        return {std::nullopt, 1};
    }
    if (classic_help) {
        print_classic_usage(argv[0]);
        return {std::nullopt, 1};
    }
    if (long_help) {
        std::fputs(app.help().c_str(), stdout);
        return {std::nullopt, 0};
    }
    if (version) {
        std::puts(kVersion);
        return {std::nullopt, 0};
    }
    // A dimension given twice would be timed twice and counted twice in the mean.
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (std::find(dims.begin(), dims.begin() + std::ptrdiff_t(i), dims[i]) != dims.begin() + std::ptrdiff_t(i)) {
            std::fprintf(stderr, "%s: --dims: %d is given twice: give each dimension once\n", argv[0], dims[i]);
            return {std::nullopt, 1};
        }
    o.dims_chosen = !dims.empty() || classic_dims;
    if (!dims.empty()) o.rotate_dims = o.smooth_dims = dims;
    if (classic_dims) {
        o.rotate_dims = {64, 128, 256, 512, 1024};
        o.smooth_dims = {32, 64, 128, 256, 512};
    }
    if (!kernel.empty()) o.only_kernel = parse_kernel(kernel);
    apply_baked_defaults(o, measured_baseline, policy_opt->count() > 0);
    // Refused here, before anything is measured, like every other bad value.
    for (const auto& event : o.events)
        if (auto why = bad_event_name(event)) {
            std::fprintf(stderr, "%s: --events: %s\n", argv[0], why->line().c_str());
            return {std::nullopt, 1};
        }
    if (o.cache_geometry) {
        const auto geometry = parse_cache_geometry(*o.cache_geometry);
        if (const auto* err = std::get_if<SimulationError>(&geometry)) {
            std::fprintf(stderr, "%s: --cache-geometry: %s\n", argv[0], err->message.c_str());
            return {std::nullopt, 1};
        }
    }
    if (o.calibrate && o.baseline_file) {
        std::fprintf(stderr, "%s: --calibrate measures the baseline, so it cannot take --baseline\n", argv[0]);
        return {std::nullopt, 1};
    }
    return {o, 0};
}

}  // namespace perflab
