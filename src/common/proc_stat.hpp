// A process's line in /proc/PID/stat, read from outside it: what the driver learns
// of a kernel host without asking the host (whose answers are not trusted).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace perflab {

struct ProcStat {
    char state = '?';  // R running or runnable, S sleeping, ... (proc(5))
    std::uint64_t minor_faults = 0;
    std::uint64_t major_faults = 0;
};

// Nothing when the process is gone or the line cannot be read.
std::optional<ProcStat> read_proc_stat(pid_t pid);

}  // namespace perflab
