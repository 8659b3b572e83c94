// Page faults a kernel host takes per call, counted by the driver from outside.
//
// The count is the kernel's own software fault counter for the host, read from
// /proc/PID/stat: it sums every thread the host ever had (a perf software event
// opened on the host's pid would miss threads the kernel created) and it can be
// read at any perf_event_paranoid, which on Debian forbids perf to students.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "driver/core/kernel_host.hpp"

namespace perflab {

// Minor plus major faults of process `pid` so far; nothing when it is gone.
std::optional<std::uint64_t> page_faults(pid_t pid);

// Faults per call of `fn` at `dim`: one call first (the images' pages are then
// mapped), then the mean over `calls` calls. Nothing when a call does not return.
std::optional<double> page_faults_per_call(KernelHost& host, const HostFunction& fn, int dim, unsigned timeout_seconds,
                                           int calls = 3);

}  // namespace perflab
