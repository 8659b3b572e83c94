#include "batch_run.hpp"

#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/scratch_dir.hpp"
#include "batch_lock.hpp"
#include "batch_page.hpp"
#include "gradebook.hpp"
#include "settings_check.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;

void BatchRun::commit(const Graded& g) {
    std::lock_guard<std::mutex> hold(commit_lock_);
    commit_graded(out, store, g, settings.grade.policy);
    if (progress && todo.count(g.record.id)) progress->done(g.record.id, summary(g.record));
}

int run_batch_with(const BatchSettings& s, BatchBackend& backend) {
    const std::string out = fs::absolute(s.out_dir).string();
    std::vector<Handin> handins = discover_handins(s.handins_dir, out);
    const BatchLock lock(out);
    fs::create_directories(out + "/feedback");
    const ScratchDir work("perflab-grader");
    BatchRun run(s, out, std::move(handins), work.path());
    backend.recover(run);
    run.plan = plan_resume(out, run.handins, run.store, s);
    // Before DIR changes: settings every hand-in would fail on stop the batch here.
    if (!run.plan.todo.empty()) check_settings(s.grade, s.fixed_baseline, run.work_root + "/settings-check");
    backend.before_start(run);
    start_resumed(out, run.store, run.plan);

    for (const auto& h : run.plan.todo) run.todo.insert(h.id);
    run.progress = std::make_unique<Progress>(stderr, run.todo.size());
    for (const auto& note : run.plan.notes) run.progress->note(note);
    if (!run.todo.empty()) backend.grade(run);
    // Also when nothing was graded: the gradebook and the page are made from DIR alone.
    write_file_atomically(out + "/gradebook.csv", gradebook_csv(run.store.records()));
    write_batch_page(out, s.grade.policy);
    run.progress->finish();
    return finish_batch(out, run.store, run.plan);
}

}  // namespace perflab::grader
