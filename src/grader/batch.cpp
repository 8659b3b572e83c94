#include "batch.hpp"


#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/host_name.hpp"
#include "common/scratch_dir.hpp"
#include "common/untrusted_text.hpp"
#include "baseline_files.hpp"
#include "batch_page.hpp"
#include "batch_run.hpp"
#include "batch_schedule.hpp"
#include "calibration.hpp"
#include "gradebook.hpp"
#include "oracle_regimes.hpp"
#include "progress.hpp"
#include "results_store.hpp"
#include "static_checks.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
std::string summary(const Record& r) {
    return r.status == Status::ok ? fmt::format("ok, {:.1f} points", r.total) : status_id(r.status) + ": " + visible_line(r.reason);
}

void commit_graded(const std::string& out, ResultsStore& store, const Graded& g, const ScoringPolicy& policy) {
    // Feedback first: a record in results.jsonl promises its feedback exists.
    write_file_atomically(out + "/feedback/" + g.record.id + ".txt", g.feedback);
    write_file_atomically(out + "/feedback/" + g.record.id + ".html", feedback_page(g.record, g.report, g.feedback));
    Record r = g.record;
    r.graded_at_ns = now_ns();
    store.append(r);
    write_file_atomically(out + "/gradebook.csv", gradebook_csv(store.records()));
    // The page follows the batch as it goes; it is made from OUT alone, so a resumed
    // batch rewrites it whole.
    write_batch_page(out, policy);
}

namespace {

// Every baseline a record of DIR points to, whichever run measured it, so
// batch.json lists them all after a resume: the files this batch's runs measured
// in DIR/baselines/, in the order they were measured, then any other a record names.
void adopt_earlier_baselines(Calibrator& calibrator, const std::string& out, const ResultsStore& store) {
    for (const auto& m : measured_baselines(out + "/baselines"))
        if (!m.from_slurm) calibrator.adopt(m.path, m.after_handins);
    for (const auto& r : store.records())
        if (!r.baseline.empty()) calibrator.adopt(r.baseline, 0);
}

// Grading here, as schedule_for says.
class LocalBatch : public BatchBackend {
public:
    void grade(BatchRun& run) override;
};

void LocalBatch::grade(BatchRun& run) {
    const BatchSettings& s = run.settings;
    const std::string& out = run.out;
    Progress& progress = *run.progress;
    GradeSettings grade = s.grade;
    Calibrator calibrator(grade.layout, run.work_root + "/calibration", grade.driver_args, grade.sandbox);
    std::set<std::string> library_names = library_symbols(grade.layout.driver);
    grade.build.library_names = &library_names;
    // Baseline file names carry the start time, so a resumed batch never
    // overwrites a baseline that earlier records point to.
    // Nanoseconds: a batch killed and resumed within one second must not write its
    // baseline over the killed run's.
    const std::string stamp = std::to_string(now_ns());
    std::string baseline = s.fixed_baseline ? fs::absolute(*s.fixed_baseline).string() : "";
    if (s.recalibrate_every) adopt_earlier_baselines(calibrator, out, run.store);
    nlohmann::json report;
    auto recalibrate = [&](std::size_t turn) {
        baseline = calibrator.measure(fmt::format("{}/baselines/{}-{}.toml", out, stamp, turn), turn);
        report = calibrator.report();
        report["baseline"] = "batch";
        report["policy"] = grade.policy.source;
        write_batch_json(out, report, run.plan.state);
        progress.note(fmt::format("baseline measured after {}: {}", counted(turn, "hand-in trial"), baseline));
    };

    const std::string host = host_name();
    if (!s.recalibrate_every) {
        report = calibrator.report();
        report["baseline"] = s.fixed_baseline ? "file" : "interleaved";
        report["policy"] = grade.policy.source;
        write_batch_json(out, report, run.plan.state);
    }
    OracleWatch oracle;
    ScheduleHooks hooks;
    hooks.baseline = [&](std::size_t turn) {
        if (s.recalibrate_every && turn % s.recalibrate_every == 0) recalibrate(turn);
        return baseline;
    };
    hooks.trial_ran = [&](const HandinGrading& g) {
        if (g.last_report()) oracle.add(*g.last_report());
    };
    hooks.graded = [&](const Graded& graded) {
        Graded g = graded;
        g.record.node = host;
        run.commit(g);
    };
    hooks.queue = [&](std::size_t running, std::size_t waiting) { progress.queue(running, waiting, 0); };
    hooks.round = [&](int round, std::size_t handins) {
        if (round > 1) progress.note(fmt::format("trial round {}: {} still to time", round, counted(handins, "hand-in")));
    };
    const Schedule schedule = schedule_for(grade.policy.basis, s.jobs);
    if (schedule.jobs > 1) progress.note(fmt::format("grading {} at once (basis = \"model\")", counted(schedule.jobs, "hand-in")));
    grade_all(run.plan.todo, grade, run.work_root, schedule, hooks);
    // The oracle shows the machine only where the points are timed.
    if (!schedule.round_robin) return;
    report["oracle_regimes"] = oracle.summary();
    write_batch_json(out, report, run.plan.state);
    for (const auto& warning : oracle.warnings()) progress.note(warning);
}

}  // namespace

int run_batch(const BatchSettings& s) {
    LocalBatch local;
    return run_batch_with(s, local);
}

}  // namespace perflab::grader
