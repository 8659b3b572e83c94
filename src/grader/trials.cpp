#include "trials.hpp"

#include <csignal>
#include <fmt/format.h>
#include <sstream>

#include "common/exit_codes.hpp"
#include "driver/core/call_outcome.hpp"
#include "driver/report/host_printed.hpp"
#include "common/statistics.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {
namespace {

using nlohmann::json;

std::string last_line_containing(const std::string& text, const std::string& needle) {
    std::istringstream in(text);
    std::string found;
    for (std::string line; std::getline(in, line);)
        if (line.find(needle) != std::string::npos) found = line;
    return found;
}

// A report member, or null when the report lacks it (a const json has no safe operator[]).
const json& member(const json& object, const char* key) {
    static const json null;
    if (!object.is_object()) return null;
    auto it = object.find(key);
    return it == object.end() ? null : *it;
}

// A run that ended without a report: say how, in the student's terms.
Outcome judge_ending(const DriverRun& run, const SandboxSettings& sandbox) {
    const Finished& f = run.finished;
    const auto mib = sandbox.memory_bytes >> 20;
    if (f.timed_out)
        return {Status::timeout, fmt::format("no result within {:.0f} s of wall-clock time: something runs forever "
                                             "outside the per-call limit (a constructor, or a kernel that never returns)",
                                             sandbox.wall_seconds)};
    if (f.signal == SIGXCPU)
        return {Status::timeout, fmt::format("used more than {} s of CPU time: make the kernels faster", sandbox.cpu_seconds)};
    if (f.exit_code == kOutOfMemoryExit) {
        const auto refused = refused_allocation(f.output);
        return {Status::out_of_memory,
                fmt::format("{}: allocations beyond the {} MiB limit are refused, allocate less",
                            refused ? *refused + " refused: out of memory" : "an allocation was refused", mib)};
    }
    if (f.exit_code == 2 && f.output.find("out of memory") != std::string::npos)
        return {Status::out_of_memory, fmt::format("the driver ran out of memory within the {} MiB limit: allocate less", mib)};
    // The driver says on the report channel, which the host cannot reach, when the
    // kernels file's constructors or registration failed; the output the host shares
    // is never read for it.
    if (f.exit_code == kExitHostTimedOut || f.exit_code == kExitHostFailed) {
        static const json no_report;
        const json& failure = member(run.report ? *run.report : no_report, "host_failure");
        const json& status = member(failure, "status");
        const json& reason = member(failure, "reason");
        if (status.is_string() && reason.is_string()) {
            const std::string s = status.get<std::string>();
            return {s == "timeout" ? Status::timeout : s == "forbidden" ? Status::forbidden : Status::crashed,
                    reason.get<std::string>()};
        }
    }
    if (f.signal == SIGSYS)
        return {Status::forbidden, "the program made a system call the sandbox forbids (it was killed by seccomp): "
                                   "kernels may compute and print, nothing else"};
    if (f.signal == SIGXFSZ)
        return {Status::crashed, fmt::format("the program wrote more than the {} MiB a run may write: write less",
                                             sandbox.file_size_bytes >> 20)};
    if (f.signal != 0)
        return {Status::crashed, fmt::format("the program died of {} outside a kernel call (before main, or after a kernel "
                                             "corrupted the driver's memory): check constructors and out-of-bounds writes",
                                             signal_name(f.signal))};
    // Quoted for the instructor, never read: the driver's own last words, before what
    // kernels.c printed.
    return {Status::internal_error, fmt::format("the driver exited with status {} without a report; its output ended "
                                                "\"{}\"",
                                                f.exit_code,
                                                last_line_containing(std::string(before_host_printed(f.output)), ""))};
}

Status status_of_failure(const std::string& kind, const std::string& error) {
    // The host's seccomp filter kills it for a system call a kernel may not make.
    if (kind == "crashed" && error.find("SIGSYS") != std::string::npos) return Status::forbidden;
    // The allocation guard ends the host with its own status when the limit refuses memory.
    if (kind == "crashed" && error.find(fmt::format("exit status {}", kOutOfMemoryExit)) != std::string::npos)
        return Status::out_of_memory;
    if (kind == "crashed") return Status::crashed;
    if (kind == "timeout") return Status::timeout;
    return Status::wrong_result;  // wrong-result, unwritten, src-modified, out-of-bounds
}

}  // namespace

DriverRun run_sandboxed(const std::vector<std::string>& driver, const std::vector<std::string>& driver_args,
                        const std::string& cwd, const SandboxSettings& sandbox) {
    std::vector<std::string> args = driver;
    args.insert(args.end(), driver_args.begin(), driver_args.end());
    args.push_back("--json");
    args.push_back(fmt::format("/dev/fd/{}", kReportFd));
    // The driver is trusted and runs here, with the grader's limits; it runs the
    // student's kernel host in the sandbox (--sandbox).
    args.push_back("--sandbox");
    SpawnSpec spec = command(args, sandbox.wall_seconds);
    spec.cwd = cwd;
    spec.report_pipe = true;
    spec.limits = {sandbox.cpu_seconds, sandbox.memory_bytes, sandbox.file_size_bytes, sandbox.processes,
                   sandbox.open_files};
    DriverRun run{spawn(spec), std::nullopt};
    if (!run.finished.report.empty()) {
        json parsed = json::parse(run.finished.report, nullptr, false);
        if (!parsed.is_discarded() && parsed.is_object()) run.report = std::move(parsed);
    }
    return run;
}

const char* speedup_key(Basis basis) { return basis == Basis::model ? "model_mean_speedup" : "mean_speedup"; }

Trial judge(const DriverRun& run, const SandboxSettings& sandbox, Basis basis) {
    Trial t;
    if (!run.report || !run.finished.exited_ok()) {
        t.outcome = judge_ending(run, sandbox);
        return t;
    }
    std::optional<Outcome> first_failure;
    for (const char* name : {"rotate", "smooth"}) {
        KernelTrial& k = std::string(name) == "rotate" ? t.rotate : t.smooth;
        const json* graded = nullptr;
        const json& variants = member(member(member(*run.report, "kernels"), name), "variants");
        if (variants.is_array())
            for (const auto& v : variants)
                if (v.is_object() && v.value("graded", false)) graded = &v;
        if (!graded) {
            if (!first_failure)
                first_failure = Outcome{Status::no_variants,
                                        fmt::format("the driver timed no {}() function: define {}() in kernels.c", name, name)};
            continue;
        }
        if (!graded->value("correct", false)) {
            const json& failure = member(*graded, "failure");
            const json& error = member(*graded, "error");
            std::string kind = member(failure, "kind").is_string() ? member(failure, "kind").get<std::string>() : "wrong-result";
            std::string text = error.is_string() ? error.get<std::string>() : kind;
            Status status = status_of_failure(kind, text);
            if (status == Status::out_of_memory) {
                const auto refused = refused_allocation(run.finished.output);
                text = fmt::format("{}: allocations beyond the {} MiB limit are refused, allocate less",
                                   refused ? *refused + " refused: out of memory" : "an allocation was refused",
                                   sandbox.memory_bytes >> 20);
            }
            if (!first_failure) first_failure = Outcome{status, fmt::format("{}(): {}", name, text)};
            continue;
        }
        const bool model = basis == Basis::model;
        const json& mean = member(*graded, speedup_key(basis));
        const json& flag = member(*graded, "model_flag");
        if (model && !mean.is_number() && flag.is_string()) {
            if (!first_failure)
                first_failure = Outcome{Status::forbidden, fmt::format("{}(): {}", name, flag.get<std::string>())};
            continue;
        }
        if (!mean.is_number()) {
            const json& why = member(*run.report, "model_unavailable");
            if (!first_failure)
                first_failure = Outcome{Status::internal_error,
                                        fmt::format("{}(): the driver reported no {}speedup{}", name, model ? "model " : "",
                                                    model && why.is_string() ? " (" + why.get<std::string>() + ")" : "")};
            continue;
        }
        k = {true, mean.get<double>()};
    }
    t.outcome = first_failure.value_or(Outcome{Status::ok, "graded"});
    return t;
}

bool grade_settled(const KernelPolicy& policy, const std::vector<double>& speedups) {
    if (policy.step <= 0) return relative_spread(speedups) <= kTrialAgreement;
    const Interval i = median_interval(speedups);
    return policy.points(i.low) == policy.points(i.high);
}

bool enough_trials(const ScoringPolicy& policy, const std::vector<double>& rotate, const std::vector<double>& smooth,
                   int done, TrialBudget budget) {
    if (done < budget.least) return false;
    return done >= budget.most || (grade_settled(policy.rotate, rotate) && grade_settled(policy.smooth, smooth));
}

void add_trial(TrialSet& set, const DriverRun& run, const SandboxSettings& sandbox, Basis basis) {
    Trial t = judge(run, sandbox, basis);
    // Until a trial says otherwise.
    if (set.trials == 0) set.rotate.correct = set.smooth.correct = true;
    if (set.trials == 0 || set.outcome.status == Status::ok) set.outcome = t.outcome;
    ++set.trials;
    set.last_output = run.finished.output;
    set.last_report = run.report;
    set.rotate.correct = set.rotate.correct && t.rotate.correct;
    set.smooth.correct = set.smooth.correct && t.smooth.correct;
    if (t.rotate.correct) set.rotate_speedups.push_back(t.rotate.speedup);
    if (t.smooth.correct) set.smooth_speedups.push_back(t.smooth.speedup);
}

bool trials_done(const TrialSet& set, const ScoringPolicy& policy, TrialBudget budget) {
    if (set.trials > 0 && !set.rotate.correct && !set.smooth.correct) return true;
    // A kernel that failed any trial earns nothing, so only the others' trials
    // count: a failed kernel's grade is settled.
    return enough_trials(policy, set.rotate.correct ? set.rotate_speedups : std::vector<double>{},
                         set.smooth.correct ? set.smooth_speedups : std::vector<double>{}, set.trials, budget);
}

void settle_trials(TrialSet& set, const ScoringPolicy& policy) {
    set.rotate.speedup = set.rotate.correct ? median(set.rotate_speedups) : 0;
    set.smooth.speedup = set.smooth.correct ? median(set.smooth_speedups) : 0;
    set.unsettled.clear();
    if (set.rotate.correct && !grade_settled(policy.rotate, set.rotate_speedups)) set.unsettled.push_back(Kernel::rotate);
    if (set.smooth.correct && !grade_settled(policy.smooth, set.smooth_speedups)) set.unsettled.push_back(Kernel::smooth);
}

}  // namespace perflab::grader
