#include "batch.hpp"


#include <algorithm>

#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/host_name.hpp"
#include "common/scratch_dir.hpp"
#include "common/untrusted_text.hpp"
#include "batch_lock.hpp"
#include "baseline_files.hpp"
#include "batch_page.hpp"
#include "batch_resume.hpp"
#include "calibration.hpp"
#include "gradebook.hpp"
#include "progress.hpp"
#include "results_store.hpp"
#include "settings_check.hpp"
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

}  // namespace

int run_batch(const BatchSettings& s) {
    const std::string out = fs::absolute(s.out_dir).string();
    std::vector<Handin> handins = discover_handins(s.handins_dir, out);
    const BatchLock lock(out);
    fs::create_directories(out + "/feedback");
    ResultsStore store(out + "/results.jsonl");
    ResumePlan plan = plan_resume(out, handins, store, s);
    const std::vector<Handin>& todo = plan.todo;

    const ScratchDir work("perflab-grader");
    const std::string& work_root = work.path();
    // Before DIR changes: settings every hand-in would fail on stop the batch here.
    if (!todo.empty()) check_settings(s.grade, s.fixed_baseline, work_root + "/settings-check");
    start_resumed(out, store, plan);

    Progress progress(stderr, todo.size());
    for (const auto& note : plan.notes) progress.note(note);
    if (todo.empty()) {
        write_file_atomically(out + "/gradebook.csv", gradebook_csv(store.records()));
        write_batch_page(out, s.grade.policy);
        return finish_batch(out, store, plan);
    }

    GradeSettings grade = s.grade;
    Calibrator calibrator(grade.layout, work_root + "/calibration", grade.driver_args, grade.sandbox);
    std::set<std::string> library_names = library_symbols(grade.layout.driver);
    grade.build.library_names = &library_names;
    // Baseline file names carry the start time, so a resumed batch never
    // overwrites a baseline that earlier records point to.
    // Nanoseconds: a batch killed and resumed within one second must not write its
    // baseline over the killed run's.
    const std::string stamp = std::to_string(now_ns());
    std::string baseline = s.fixed_baseline ? fs::absolute(*s.fixed_baseline).string() : "";
    if (s.recalibrate_every) adopt_earlier_baselines(calibrator, out, store);
    auto recalibrate = [&](std::size_t graded) {
        if (s.fixed_baseline) return;
        baseline = calibrator.measure(fmt::format("{}/baselines/{}-{}.toml", out, stamp, graded), graded);
        nlohmann::json report = calibrator.report();
        report["baseline"] = "batch";
        report["policy"] = grade.policy.source;
        write_batch_json(out, report, plan.state);
        progress.note(fmt::format("baseline measured after {}: {}", counted(graded, "hand-in"), baseline));
    };

    const std::string host = host_name();
    if (!s.recalibrate_every) {
        nlohmann::json report = calibrator.report();
        report["baseline"] = s.fixed_baseline ? "file" : "interleaved";
        report["policy"] = grade.policy.source;
        write_batch_json(out, report, plan.state);
    }
    for (std::size_t i = 0; i < todo.size(); ++i) {
        if (s.recalibrate_every && i % s.recalibrate_every == 0) recalibrate(i);
        const Handin& h = todo[i];
        progress.queue(1, todo.size() - i - 1, 0);
        Graded g = grade_handin(h, grade, baseline, work_root + "/handin");
        g.record.node = host;
        commit_graded(out, store, g, s.grade.policy);
        progress.done(h.id, summary(g.record));
    }
    progress.finish();
    return finish_batch(out, store, plan);
}

}  // namespace perflab::grader
