// What on this machine can move the timings: who controls the CPU frequency, and
// whether something else is running on the CPU the driver pins itself to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace perflab {

struct FrequencyControl {
    bool cpufreq_present = false;       // /sys/devices/system/cpu/cpufreq (absent in most VMs)
    std::string governor;               // of the pinned CPU; "" when unknown
    std::optional<bool> boost;          // cpufreq/boost: turbo allowed
    std::optional<bool> pstate_no_turbo;  // intel_pstate/no_turbo
};

struct CpuLoad {
    int cpu = -1;
    double busy_fraction = 0;  // of the window, by everyone (the driver sleeps meanwhile)
    double window_seconds = 0;
    std::optional<double> loadavg1;
    int logical_cpus = 0;
};

struct SystemState {
    FrequencyControl frequency;
    std::optional<CpuLoad> load;  // absent when /proc/stat has no line for the CPU
};

// Sleeps `window_ms` while watching `cpu` (the pinned one; -1: all CPUs together).
SystemState read_system_state(int cpu, int window_ms, const std::string& sysfs_cpu = "/sys/devices/system/cpu");

// Busy and total jiffies of the "cpuN" line of /proc/stat text ("cpu" for cpu < 0).
struct CpuTimes {
    std::uint64_t busy = 0, total = 0;
};
std::optional<CpuTimes> parse_proc_stat(const std::string& text, int cpu);

}  // namespace perflab
