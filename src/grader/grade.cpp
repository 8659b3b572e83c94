#include "grade.hpp"

#include "handin_digest.hpp"

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/untrusted_text.hpp"
#include "tenths.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

// Paths as the student knows them: kernels.c, not the grader's scratch copy of it (a
// compiler names it in every message), and any other file of the grader's by its name
// alone: the student has neither.
std::string relative_to_handin(std::string text, const std::string& work_dir, const std::string& install_dir) {
    const std::string src = HandinDirs::src_of(work_dir) + "/";
    for (auto at = text.find(src); at != std::string::npos; at = text.find(src, at)) text.erase(at, src.size());
    // The grader's scratch directory and its install directory (the driver names
    // itself by its path in its messages).
    for (std::string dir : {fs::path(work_dir).parent_path().string(),
                            install_dir.empty() ? std::string() : fs::absolute(install_dir).string()}) {
        if (dir.empty() || dir == "/") continue;
        if (dir.back() != '/') dir += '/';
        for (auto at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) {
            auto end = text.find_first_of(" \t\n'\":,;()", at);
            if (end == std::string::npos) end = text.size();
            const std::string name = fs::path(text.substr(at, end - at)).filename().string();
            text.replace(at, end - at, name);
            at += name.size();
        }
    }
    return text;
}

// Each trial's speedup, so a student sees what the median was taken over.
std::string trial_speedups(const TrialSet& set) {
    std::string line;
    for (const auto& [kernel, speedups] : {std::pair{"rotate", &set.rotate_speedups}, {"smooth", &set.smooth_speedups}})
        if (!speedups->empty())
            line += fmt::format("{}{} {:.2f}", line.empty() ? "" : "; ", kernel, fmt::join(*speedups, ", "));
    return line.empty() ? "" : "trial speedups: " + line + " (the grade takes each kernel's median)\n";
}

// Every record leaves here: its reason and the text around it carry what the
// hand-in wrote (compiler output, what its program printed), made visible, with
// paths as the student knows them.
Graded finished(Record r, const std::string& body, std::optional<nlohmann::json> report, const std::string& work_dir,
                const std::string& install_dir, const std::string& trials = "") {
    r.reason = visible_line(relative_to_handin(r.reason, work_dir, install_dir));
    std::string text = fmt::format("perflab grader: {}\nstatus: {}\nreason: {}\n", visible_line(r.id), status_id(r.status),
                                   r.reason);
    if (r.status == Status::ok || r.rotate_points > 0 || r.smooth_points > 0)
        text += fmt::format("points: rotate {:.1f}  smooth {:.1f}  total {:.1f}\n", r.rotate_points, r.smooth_points,
                            r.total);
    text += trials;
    if (!body.empty())
        text += "\n" + visible_text(relative_to_handin(body, work_dir, install_dir)) + (body.back() == '\n' ? "" : "\n");
    return {std::move(r), std::move(text), std::move(report)};
}

}  // namespace

HandinGrading::HandinGrading(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                             std::string work_dir)
    : settings_(settings), work_dir_(std::move(work_dir)) {
    fs::remove_all(work_dir_);
    HandinDirs dirs(work_dir_);
    input_dir_ = dirs.input;
    Record& r = record_;
    r.id = handin.id;
    r.basis = settings.policy.basis;
    r.baseline = baseline_file;
    // Taken as the hand-in is read, so that the record names what was graded even when
    // it is committed later (a Slurm task's, by the submitting grader).
    r.handin_sha256 = handin_sha256(handin);
    try {
        extract_kernels(handin, dirs.src + "/kernels.c");
    } catch (const HandinError& e) {
        r.status = Status::unusable;
        r.reason = e.what();
        ended_ = finished(r, "", std::nullopt, work_dir_, settings_.layout.root);
        return;
    }
    try {
        Built built = build_handin(settings.layout, dirs, settings.build);
        log_ = built.log;
        if (built.failure) {
            r.status = built.failure->status;
            r.reason = built.failure->reason;
            ended_ = finished(r, built.log, std::nullopt, work_dir_, settings_.layout.root);
            return;
        }
        driver_ = driver_command(settings.layout, built.host);
        args_ = {"-g", "-t"};
        // The policy goes with the run, so the driver times the dimensions it
        // names and its report shows the points the grader gives.
        const std::string policy = dirs.input + "/policy.toml";
        write_file_atomically(policy, policy_to_toml(settings.policy, "The grader's policy (" + settings.policy.source + ")."));
        fs::permissions(policy, fs::perms(0644));
        args_.insert(args_.end(), {"--policy", policy});
        args_.insert(args_.end(), settings.driver_args.begin(), settings.driver_args.end());
    } catch (const std::exception& e) {
        fail_internally(e);
    }
}

HandinGrading::~HandinGrading() {
    std::error_code ec;
    fs::remove_all(work_dir_, ec);
}

void HandinGrading::fail_internally(const std::exception& e) {
    // The grader's own tools failed, not the hand-in: say so, and grade the rest.
    Record r = record_;
    r.status = Status::internal_error;
    r.reason = std::string(e.what()) + " (not the hand-in's fault: run the batch again once fixed, which regrades it)";
    ended_ = finished(r, log_, std::nullopt, work_dir_, settings_.layout.root);
}

bool HandinGrading::wants_trial() const {
    const TrialBudget budget = settings_.policy.basis == Basis::model ? kModelTrials
                                                                      : TrialBudget{settings_.trials, settings_.most_trials()};
    return !ended_ && !trials_done(set_, settings_.policy, budget);
}

void HandinGrading::run_trial(const std::string& baseline_file) {
    try {
        std::vector<std::string> args = args_;
        record_.baseline = baseline_file;
        // The run reads a copy: the grader's baseline file is never visible in a sandbox.
        if (!baseline_file.empty()) {
            const std::string copy = input_dir_ + "/baseline.toml";
            fs::copy_file(baseline_file, copy, fs::copy_options::overwrite_existing);
            fs::permissions(copy, fs::perms(0644));
            args.insert(args.begin() + 2, {"--baseline", copy});
        }
        add_trial(set_, run_sandboxed(driver_, args, input_dir_, settings_.sandbox), settings_.sandbox,
                  settings_.policy.basis);
    } catch (const std::exception& e) {
        fail_internally(e);
    }
}

Graded HandinGrading::finish() {
    if (ended_) return *ended_;
    settle_trials(set_, settings_.policy);
    Record r = record_;
    r.status = set_.outcome.status;
    r.reason = set_.outcome.reason;
    r.trials = set_.trials;
    if (set_.rotate.correct) {
        r.rotate_speedup = set_.rotate.speedup;
        r.rotate_points = tenths(settings_.policy.rotate.points(set_.rotate.speedup));
    }
    if (set_.smooth.correct) {
        r.smooth_speedup = set_.smooth.speedup;
        r.smooth_points = tenths(settings_.policy.smooth.points(set_.smooth.speedup));
    }
    // Rounded here, once: every output shows these parts and this sum of them.
    r.total = sum_of_tenths(r.rotate_points, r.smooth_points);
    if (r.status == Status::ok && r.basis == Basis::model) {
        r.reason = fmt::format("graded on the model machine: rotate speedup {:.2f}, smooth speedup {:.2f}",
                               set_.rotate.speedup, set_.smooth.speedup);
    } else if (r.status == Status::ok) {
        r.reason = fmt::format("graded: median of {}, rotate speedup {:.2f}, smooth speedup {:.2f}",
                               counted(r.trials, "trial"), set_.rotate.speedup, set_.smooth.speedup);
        for (Kernel k : set_.unsettled)
            r.reason += settings_.policy.of(k).step > 0
                            ? fmt::format("; {} within the trials' noise of a grade's edge", kernel_name(k))
                            : fmt::format("; {}'s trials spread more than {:.0f}%", kernel_name(k), 100 * kTrialAgreement);
    }
    // The model's one trial is the grade: no median to show the trials of.
    return finished(r, set_.last_output, set_.last_report, work_dir_, settings_.layout.root,
                    r.basis == Basis::model ? std::string() : trial_speedups(set_));
}

Graded grade_handin(const Handin& handin, const GradeSettings& settings, const std::string& baseline_file,
                    const std::string& work_dir) {
    HandinGrading grading(handin, settings, baseline_file, work_dir);
    while (grading.wants_trial()) grading.run_trial(baseline_file);
    return grading.finish();
}

}  // namespace perflab::grader
