#include "system_noise.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/read_file.hpp"

namespace perflab {
namespace {

std::optional<std::string> first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
}

std::optional<bool> flag(const std::string& path) {
    auto line = first_line(path);
    if (!line || line->empty()) return std::nullopt;
    return (*line)[0] == '1';
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(const std::string& text, int cpu) {
    const std::string want = cpu < 0 ? "cpu" : "cpu" + std::to_string(cpu);
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        if (name != want) continue;
        // user nice system idle iowait irq softirq steal: idle and iowait are the
        // CPU's free time; steal is the hypervisor's, which the guest did not get.
        std::uint64_t v[8] = {};
        for (auto& x : v) fields >> x;
        CpuTimes t;
        for (int i = 0; i < 8; ++i) {
            t.total += v[i];
            if (i != 3 && i != 4) t.busy += v[i];
        }
        return t;
    }
    return std::nullopt;
}

SystemState read_system_state(int cpu, int window_ms, const std::string& sysfs_cpu) {
    SystemState s;
    auto& f = s.frequency;
    auto governor = first_line(sysfs_cpu + "/cpu" + std::to_string(cpu < 0 ? 0 : cpu) + "/cpufreq/scaling_governor");
    f.governor = governor.value_or("");
    f.boost = flag(sysfs_cpu + "/cpufreq/boost");
    f.pstate_no_turbo = flag(sysfs_cpu + "/intel_pstate/no_turbo");
    f.cpufreq_present = governor || f.boost || f.pstate_no_turbo;

    auto before = parse_proc_stat(read_file("/proc/stat").value_or(""), cpu);
    std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
    auto after = parse_proc_stat(read_file("/proc/stat").value_or(""), cpu);
    if (before && after && after->total > before->total) {
        CpuLoad load;
        load.cpu = cpu;
        load.busy_fraction = double(after->busy - before->busy) / double(after->total - before->total);
        load.window_seconds = window_ms / 1000.0;
        load.logical_cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
        std::ifstream avg("/proc/loadavg");
        double one;
        if (avg >> one) load.loadavg1 = one;
        s.load = load;
    }
    return s;
}

}  // namespace perflab
