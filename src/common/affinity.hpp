// Pinning: a sample that migrates between CPUs mid-call measures the migration.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perflab {

struct Pinning {
    int cpu = -1;             // the CPU we run on, -1 when pinning failed
    std::string error;        // why it failed, for the report
    std::vector<int> allowed; // the CPUs this process could run on before it pinned itself
};

// Pins the calling thread to one CPU it is allowed on (the last one in its mask,
// which on most systems takes fewer device interrupts than CPU 0), or to `cpu`.
Pinning pin_to_one_cpu(std::optional<int> cpu = std::nullopt);

// Pins the calling thread (not the process) to `cpu`: a worker of several that must
// not share one. False when the system refuses.
bool pin_this_thread(int cpu);

// The CPU pin_to_one_cpu() chooses by default, -1 when the mask cannot be read.
int last_allowed_cpu();

}  // namespace perflab
