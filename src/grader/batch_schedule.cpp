#include "batch_schedule.hpp"

#include "common/affinity.hpp"
#include "common/cpu_activity.hpp"

#include <exception>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace perflab::grader {

Schedule schedule_for(Basis basis, std::size_t jobs) {
    if (basis == Basis::model) return {jobs ? jobs : std::max<std::size_t>(1, allowed_cpu_list().size()), false};
    if (jobs > 1)
        throw std::runtime_error(fmt::format("--jobs {} needs basis = \"model\" in the policy: timed grades need a quiet "
                                             "core, so the timing basis grades one hand-in at a time",
                                             jobs));
    return {1, true};
}

namespace {

std::string work_dir(const std::string& root, std::size_t index) { return fmt::format("{}/handin-{}", root, index); }

// One hand-in at a time, its trials in rounds across the batch.
void grade_in_rounds(const std::vector<Handin>& todo, const GradeSettings& settings, const std::string& root,
                     const ScheduleHooks& hooks) {
    std::vector<std::unique_ptr<HandinGrading>> live;
    std::size_t turn = 0;
    auto waiting = [&](std::size_t started) { return live.size() + (todo.size() - started); };
    // One turn of `g` (with the baseline this turn uses); false once it is graded
    // (and committed).
    auto take_turn = [&](HandinGrading& g, const std::string& baseline) {
        ++turn;
        if (g.wants_trial()) {
            g.run_trial(baseline);
            hooks.trial_ran(g);
        }
        if (g.wants_trial()) return true;
        hooks.graded(g.finish());
        return false;
    };
    // Round 1 builds each hand-in just before its first trial, so a hand-in that
    // does not build is committed at once.
    hooks.round(1, todo.size());
    for (std::size_t i = 0; i < todo.size(); ++i) {
        hooks.queue(1, waiting(i + 1));
        const std::string baseline = hooks.baseline(turn);
        auto g = std::make_unique<HandinGrading>(todo[i], settings, baseline, work_dir(root, i));
        if (take_turn(*g, baseline)) live.push_back(std::move(g));
    }
    for (int round = 2; !live.empty(); ++round) {
        hooks.round(round, live.size());
        std::vector<std::unique_ptr<HandinGrading>> next;
        for (std::size_t i = 0; i < live.size(); ++i) {
            hooks.queue(1, live.size() - i - 1 + next.size());
            if (take_turn(*live[i], hooks.baseline(turn))) next.push_back(std::move(live[i]));
            else live[i].reset();  // its directory goes now, not at the end of the round
        }
        live = std::move(next);
    }
}

// Whole hand-ins on `jobs` workers, each pinned to a CPU of its own (while there
// are enough), so that the driver each starts, which pins itself to the last CPU
// it may use, does not share one with the others.
void grade_in_parallel(const std::vector<Handin>& todo, const GradeSettings& settings, const std::string& root,
                       std::size_t jobs, const ScheduleHooks& hooks) {
    std::mutex lock;
    std::size_t next = 0, running = 0, turn = 0;
    std::exception_ptr failure;
    const std::vector<int> cpus = allowed_cpu_list();
    auto worker = [&](std::size_t k) {
        if (!cpus.empty()) pin_this_thread(cpus[k % cpus.size()]);
        for (;;) {
            std::size_t i = 0;
            std::string baseline;
            {
                std::lock_guard<std::mutex> hold(lock);
                if (failure || next == todo.size()) return;
                i = next++;
                ++running;
                hooks.queue(running, todo.size() - next);
                baseline = hooks.baseline(turn++);
            }
            try {
                HandinGrading g(todo[i], settings, baseline, work_dir(root, i));
                while (g.wants_trial()) {
                    g.run_trial(baseline);
                    std::lock_guard<std::mutex> hold(lock);
                    hooks.trial_ran(g);
                }
                Graded graded = g.finish();
                std::lock_guard<std::mutex> hold(lock);
                --running;
                hooks.graded(graded);
            } catch (...) {
                std::lock_guard<std::mutex> hold(lock);
                if (!failure) failure = std::current_exception();
                return;
            }
        }
    };
    std::vector<std::thread> workers;
    for (std::size_t k = 0; k < std::min(jobs, todo.size()); ++k) workers.emplace_back(worker, k);
    for (auto& w : workers) w.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

void grade_all(const std::vector<Handin>& todo, const GradeSettings& settings, const std::string& work_root,
               Schedule schedule, const ScheduleHooks& hooks) {
    if (schedule.round_robin) grade_in_rounds(todo, settings, work_root, hooks);
    else grade_in_parallel(todo, settings, work_root, std::max<std::size_t>(1, schedule.jobs), hooks);
}

}  // namespace perflab::grader
