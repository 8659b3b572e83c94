// The order in which a batch grades its hand-ins, for a local batch and a Slurm
// task alike.
//
// Timed grades need a quiet core, so under the timing basis one hand-in runs at
// a time, and each hand-in's trials are spread over the batch in rounds: every
// hand-in's first trial, then every second, ... A machine that changes regime
// mid-batch (a neighbour takes the shared cache) then falls on every hand-in's
// trials alike instead of on the last hand-ins' only: a batch graded one hand-in
// after another gave twelve identical copies 3.9 to 13.0 points that way.
//
// The model's figures do not depend on what else runs, so under the model basis
// whole hand-ins are graded on `jobs` cores at once, one worker per core.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "discovery.hpp"
#include "grade.hpp"

namespace perflab::grader {

struct Schedule {
    std::size_t jobs = 1;     // hand-ins graded at once
    bool round_robin = true;  // trials in rounds across the hand-ins (needs jobs == 1)
};

// What the batch does around the grading. The schedule calls these one at a time
// (never two at once, whatever the jobs), so they need no lock of their own.
struct ScheduleHooks {
    // Before turn `turn` (0, 1, ...): the baseline file it uses ("" none). In rounds
    // a turn is one trial of one hand-in (or its build, when it never runs); in
    // parallel, one hand-in's whole grading.
    std::function<std::string(std::size_t turn)> baseline = [](std::size_t) { return std::string(); };
    // A trial ran (its report, when one arrived whole, is grading.last_report()).
    std::function<void(const HandinGrading& grading)> trial_ran = [](const HandinGrading&) {};
    // A hand-in is graded: commit it.
    std::function<void(const Graded& graded)> graded = [](const Graded&) {};
    // Hand-ins being graded now and waiting, after each change.
    std::function<void(std::size_t running, std::size_t waiting)> queue = [](std::size_t, std::size_t) {};
    // A new round of trials starts (round-robin only): the instructor hears of it.
    std::function<void(int round, std::size_t handins)> round = [](int, std::size_t) {};
};

// The schedule of a batch graded on `basis` with `jobs` asked for (0: one per
// CPU this process may run on under the model basis). Throws std::runtime_error
// (one line, cause and remedy) for more than one job under the timing basis.
Schedule schedule_for(Basis basis, std::size_t jobs);

// Grades every hand-in of `todo` under `settings`, each in its own directory under
// `work_root`. Rethrows the first exception a hook threw, once every worker stopped.
void grade_all(const std::vector<Handin>& todo, const GradeSettings& settings, const std::string& work_root,
               Schedule schedule, const ScheduleHooks& hooks);

}  // namespace perflab::grader
