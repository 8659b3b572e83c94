#include "grade.hpp"

#include "handin_digest.hpp"

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/untrusted_text.hpp"
#include "tenths.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

// Every record leaves here: its reason and the text around it carry what the
// hand-in wrote (compiler output, what its program printed), made visible.
Graded finished(Record r, const std::string& body, std::optional<nlohmann::json> report) {
    r.reason = visible_line(r.reason);
    std::string text = fmt::format("perflab grader: {}\nstatus: {}\nreason: {}\n", visible_line(r.id), status_id(r.status),
                                   r.reason);
    if (r.status == Status::ok || r.rotate_points > 0 || r.smooth_points > 0)
        text += fmt::format("points: rotate {:.1f}  smooth {:.1f}  total {:.1f}\n", r.rotate_points, r.smooth_points,
                            r.total);
    if (!body.empty()) text += "\n" + visible_text(body) + (body.back() == '\n' ? "" : "\n");
    return {std::move(r), std::move(text), std::move(report)};
}

// Removes the work directory whatever way grading ends.
struct WorkDir {
    std::string path;
    explicit WorkDir(std::string p) : path(std::move(p)) { fs::remove_all(path); }
    ~WorkDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

Graded grade_handin(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                    const std::string& work_dir) {
    WorkDir work(work_dir);
    HandinDirs dirs(work.path);
    Record r;
    r.id = handin.id;
    r.baseline = baseline_file;
    // Taken as the hand-in is read, so that the record names what was graded even when
    // it is committed later (a Slurm task's, by the submitting grader).
    r.handin_sha256 = handin_sha256(handin);
    try {
        extract_kernels(handin, dirs.src + "/kernels.c");
    } catch (const HandinError& e) {
        r.status = Status::unusable;
        r.reason = e.what();
        return finished(std::move(r), "", std::nullopt);
    }
    Built built;
    TrialSet set;
    try {
        built = build_handin(settings.layout, dirs, settings.build);
        if (built.failure) {
            r.status = built.failure->status;
            r.reason = built.failure->reason;
            return finished(std::move(r), built.log, std::nullopt);
        }
        std::vector<std::string> args{"-g", "-t"};
        // The run reads a copy: the grader's baseline file is never visible in a sandbox.
        if (!baseline_file.empty()) {
            const std::string copy = dirs.input + "/baseline.toml";
            fs::copy_file(baseline_file, copy, fs::copy_options::overwrite_existing);
            fs::permissions(copy, fs::perms(0644));
            args.insert(args.end(), {"--baseline", copy});
        }
        // The policy goes with the run, so the driver times the dimensions it
        // names and its report shows the points the grader gives.
        const std::string policy = dirs.input + "/policy.toml";
        write_file_atomically(policy, policy_to_toml(settings.policy, "The grader's policy (" + settings.policy.source + ")."));
        fs::permissions(policy, fs::perms(0644));
        args.insert(args.end(), {"--policy", policy});
        args.insert(args.end(), settings.driver_args.begin(), settings.driver_args.end());
        set = run_trials(driver_command(settings.layout, built.host), args, dirs.input, settings.sandbox, settings.policy,
                         {settings.trials, settings.most_trials()});
    } catch (const std::exception& e) {
        // The grader's own tools failed, not the hand-in: say so, and grade the rest.
        r.status = Status::internal_error;
        r.reason = std::string(e.what()) + " (not the hand-in's fault: run the batch again once fixed, which regrades it)";
        return finished(std::move(r), built.log, std::nullopt);
    }
    r.status = set.outcome.status;
    r.reason = set.outcome.reason;
    r.trials = set.trials;
    if (set.rotate.correct) {
        r.rotate_speedup = set.rotate.speedup;
        r.rotate_points = tenths(settings.policy.rotate.points(set.rotate.speedup));
    }
    if (set.smooth.correct) {
        r.smooth_speedup = set.smooth.speedup;
        r.smooth_points = tenths(settings.policy.smooth.points(set.smooth.speedup));
    }
    // Rounded here, once: every output shows these parts and this sum of them.
    r.total = sum_of_tenths(r.rotate_points, r.smooth_points);
    if (r.status == Status::ok) {
        r.reason = fmt::format("graded: median of {}, rotate speedup {:.2f}, smooth speedup {:.2f}",
                               counted(r.trials, "trial"), set.rotate.speedup, set.smooth.speedup);
        for (Kernel k : set.unsettled)
            r.reason += settings.policy.of(k).step > 0
                            ? fmt::format("; {} within the trials' noise of a grade's edge", kernel_name(k))
                            : fmt::format("; {}'s trials spread more than {:.0f}%", kernel_name(k), 100 * kTrialAgreement);
    }
    return finished(std::move(r), set.last_output, set.last_report);
}

}  // namespace perflab::grader
