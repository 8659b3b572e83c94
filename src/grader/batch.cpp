#include "batch.hpp"

#include <chrono>

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "common/atomic_file.hpp"
#include "common/scratch_dir.hpp"
#include "batch_page.hpp"
#include "calibration.hpp"
#include "gradebook.hpp"
#include "progress.hpp"
#include "results_store.hpp"
#include "static_checks.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {


}  // namespace

std::string summary(const Record& r) {
    return r.status == Status::ok ? fmt::format("ok, {:.1f} points", r.total) : status_id(r.status) + ": " + r.reason;
}

std::string host_name() {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return host;
}

void commit_graded(const std::string& out, ResultsStore& store, const Graded& g, const ScoringPolicy& policy) {
    // Feedback first: a record in results.jsonl promises its feedback exists.
    write_file_atomically(out + "/feedback/" + g.record.id + ".txt", g.feedback);
    write_file_atomically(out + "/feedback/" + g.record.id + ".html", feedback_page(g.record, g.report, g.feedback));
    store.append(g.record);
    write_file_atomically(out + "/gradebook.csv", gradebook_csv(store.records()));
    // The page follows the batch as it goes; it is made from OUT alone, so a resumed
    // batch rewrites it whole.
    write_batch_page(out, policy);
}

int run_batch(const BatchSettings& s) {
    fs::create_directories(fs::path(s.out_dir) / "feedback");
    const std::string out = fs::absolute(s.out_dir).string();
    std::vector<Handin> handins = discover_handins(s.handins_dir);
    ResultsStore store(out + "/results.jsonl");
    if (s.force) {
        std::set<std::string> ids;
        for (const auto& h : handins) ids.insert(h.id);
        store.forget(ids);
    }
    std::vector<Handin> todo;
    for (const auto& h : handins)
        if (!store.has(h.id)) todo.push_back(h);

    Progress progress(stderr, todo.size());
    if (handins.size() != todo.size())
        progress.note(fmt::format("{} of {} hand-ins already graded in {} (--force regrades them)",
                                  handins.size() - todo.size(), handins.size(), out));
    if (todo.empty()) {
        write_file_atomically(out + "/gradebook.csv", gradebook_csv(store.records()));
        write_batch_page(out, s.grade.policy);
        return 0;
    }

    const ScratchDir work("perflab-grader");
    const std::string& work_root = work.path();

    GradeSettings grade = s.grade;
    Calibrator calibrator(grade.layout, work_root + "/calibration", grade.driver_args, grade.sandbox);
    std::set<std::string> library_names = library_symbols(grade.layout.driver);
    grade.build.library_names = &library_names;
    // Baseline file names carry the start time, so a resumed batch never
    // overwrites a baseline that earlier records point to.
    // Nanoseconds: a batch killed and resumed within one second must not write its
    // baseline over the killed run's.
    const std::string stamp = std::to_string(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    std::string baseline = s.fixed_baseline ? fs::absolute(*s.fixed_baseline).string() : "";
    auto recalibrate = [&](std::size_t graded) {
        if (s.fixed_baseline) return;
        baseline = calibrator.measure(fmt::format("{}/baselines/{}-{}.toml", out, stamp, graded), graded);
        nlohmann::json report = calibrator.report();
        report["baseline"] = "batch";
        report["policy"] = grade.policy.source;
        write_file_atomically(out + "/batch.json", report.dump(2) + "\n");
        progress.note(fmt::format("baseline measured after {} hand-ins: {}", graded, baseline));
    };

    const std::string host = host_name();
    if (!s.recalibrate_every) {
        nlohmann::json report = calibrator.report();
        report["baseline"] = s.fixed_baseline ? "file" : "interleaved";
        report["policy"] = grade.policy.source;
        write_file_atomically(out + "/batch.json", report.dump(2) + "\n");
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
    return 0;
}

}  // namespace perflab::grader
