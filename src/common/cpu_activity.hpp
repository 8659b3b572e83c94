// How busy each CPU is, from outside the tasks on it: which CPU the driver should time
// on (the one fewest other tasks want, just before the run) and how much the others
// got in its way during the run. Read from /proc/stat (each CPU's busy and steal
// jiffies), the tasks' /proc/PID/task/TID/stat (who is runnable on which CPU) and
// /proc/PID/schedstat (how long our own tasks waited for their CPU). The parsing takes
// text, so the decisions are tested on made-up files.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perflab {

struct CpuJiffies {
    std::uint64_t busy = 0, steal = 0, total = 0;  // steal: what the hypervisor gave another guest
};

// Every "cpuN" line of /proc/stat text, by N.
std::map<int, CpuJiffies> parse_cpu_jiffies(const std::string& proc_stat);

// The CPU a task last ran on (field 39 of its stat line) when it is runnable (state
// R); nothing when it sleeps or the line cannot be read.
std::optional<int> runnable_on(const std::string& task_stat_line);

// One CPU seen over a short window.
struct CpuBusyness {
    int cpu = -1;
    double runnable = 0;       // other tasks runnable there, on average over the snapshots
    double busy_fraction = 0;  // of the window, by anyone
};

// What a window of snapshots saw of `allowed`: the jiffies at its start and end, and
// for each snapshot the CPUs of the runnable tasks (ours left out).
std::vector<CpuBusyness> cpu_busyness(const std::vector<int>& allowed, const std::map<int, CpuJiffies>& before,
                                      const std::map<int, CpuJiffies>& after,
                                      const std::vector<std::vector<int>>& runnable_snapshots);

// The CPU a run will be quietest on: the fewest other runnable tasks; within a
// quarter of a task, the least busy; within 5% of that, the later CPU (CPU 0 takes
// more device interrupts on most systems). -1 for an empty list.
int quietest_cpu(const std::vector<CpuBusyness>& cpus);

// Watches the allowed CPUs for `window` (a few snapshots of every task on the
// machine, the caller's own left out).
std::vector<CpuBusyness> measure_cpu_busyness(const std::vector<int>& allowed, std::chrono::milliseconds window);

// The CPUs this process may run on.
std::vector<int> allowed_cpu_list();

// Nanoseconds a task has waited, runnable, for a CPU: the second field of
// /proc/PID/schedstat text.
std::optional<std::uint64_t> parse_run_delay_ns(const std::string& schedstat);

// How much other tasks got in the way of `pids` on `cpu` between start() and stop().
class InterferenceMeter {
public:
    void start(int cpu, const std::vector<pid_t>& pids);
    struct Reading {
        double waiting_fraction = 0;  // our tasks' time runnable but not running, over the wall time
        double steal_fraction = 0;    // of the CPU's time, taken by the hypervisor
        double seconds = 0;
    };
    // Tasks that are gone by then (a host started again) are left out.
    std::optional<Reading> stop(const std::vector<pid_t>& pids) const;

private:
    int cpu_ = -1;
    std::map<pid_t, std::uint64_t> delays_;
    std::optional<CpuJiffies> jiffies_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace perflab
