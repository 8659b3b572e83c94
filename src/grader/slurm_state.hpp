// DIR/slurm/state.json: every submission of a Slurm batch (its job array and
// the hand-ins of each task) and each hand-in's attempts, typed and read and
// written here only.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace perflab::grader {

struct SlurmSubmission {
    int number = 0;
    std::string job;                              // the array job id
    std::vector<std::vector<std::string>> tasks;  // the IDs of each array task, by task index
};

struct SlurmState {
    int next_submission = 1;
    std::vector<SlurmSubmission> submissions;
    std::map<std::string, int> attempts;  // by hand-in ID: how many of its tasks failed
};

// A missing or unreadable file is a fresh state (the batch starts over on Slurm's side).
SlurmState read_slurm_state(const std::string& path);
void write_slurm_state(const std::string& path, const SlurmState& state);

}  // namespace perflab::grader
