#include "cpu_activity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <thread>

namespace perflab {
namespace {

std::string proc_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The CPUs of every runnable task on the machine but `self`'s.
std::vector<int> runnable_cpus(pid_t self) {
    std::vector<int> cpus;
    std::error_code ec;
    for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = proc.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])) || name == std::to_string(self)) continue;
        std::error_code task_ec;
        for (const auto& task : std::filesystem::directory_iterator(proc.path() / "task", task_ec))
            if (auto cpu = runnable_on(proc_file((task.path() / "stat").string()))) cpus.push_back(*cpu);
    }
    return cpus;
}

}  // namespace

std::map<int, CpuJiffies> parse_cpu_jiffies(const std::string& proc_stat) {
    std::map<int, CpuJiffies> out;
    std::istringstream in(proc_stat);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
        std::istringstream fields(line.substr(3));
        int cpu = -1;
        // user nice system idle iowait irq softirq steal: idle and iowait are free time.
        std::uint64_t v[8] = {};
        if (!(fields >> cpu)) continue;
        for (auto& x : v) fields >> x;
        CpuJiffies j;
        for (int i = 0; i < 8; ++i) {
            j.total += v[i];
            if (i != 3 && i != 4) j.busy += v[i];
        }
        j.steal = v[7];
        out[cpu] = j;
    }
    return out;
}

std::optional<int> runnable_on(const std::string& task_stat_line) {
    // The command (field 2) may hold spaces and parentheses: count from the last ')'.
    const auto close = task_stat_line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(task_stat_line.substr(close + 1));
    std::string f;
    std::vector<std::string> rest;  // fields 3, 4, ...
    while (fields >> f) rest.push_back(f);
    if (rest.size() < 37 || rest[0] != "R") return std::nullopt;
    try {
        return std::stoi(rest[36]);  // field 39: processor
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::vector<CpuBusyness> cpu_busyness(const std::vector<int>& allowed, const std::map<int, CpuJiffies>& before,
                                      const std::map<int, CpuJiffies>& after,
                                      const std::vector<std::vector<int>>& runnable_snapshots) {
    std::vector<CpuBusyness> out;
    for (int cpu : allowed) {
        CpuBusyness b;
        b.cpu = cpu;
        const auto from = before.find(cpu), to = after.find(cpu);
        if (from != before.end() && to != after.end() && to->second.total > from->second.total)
            b.busy_fraction =
                double(to->second.busy - from->second.busy) / double(to->second.total - from->second.total);
        for (const auto& snapshot : runnable_snapshots) b.runnable += double(std::count(snapshot.begin(), snapshot.end(), cpu));
        if (!runnable_snapshots.empty()) b.runnable /= double(runnable_snapshots.size());
        out.push_back(b);
    }
    return out;
}

int quietest_cpu(const std::vector<CpuBusyness>& cpus) {
    if (cpus.empty()) return -1;
    // Each step keeps those close to the best by one measure, then the next decides.
    std::vector<CpuBusyness> left = cpus;
    auto keep_near_least = [&](double CpuBusyness::*member, double slack) {
        double least = left.front().*member;
        for (const auto& c : left) least = std::min(least, c.*member);
        std::erase_if(left, [&](const CpuBusyness& c) { return c.*member > least + slack; });
    };
    keep_near_least(&CpuBusyness::runnable, 0.25);
    keep_near_least(&CpuBusyness::busy_fraction, 0.05);
    return std::max_element(left.begin(), left.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; })->cpu;
}

std::vector<CpuBusyness> measure_cpu_busyness(const std::vector<int>& allowed, std::chrono::milliseconds window) {
    constexpr int kSnapshots = 5;
    const pid_t self = getpid();
    const auto before = parse_cpu_jiffies(proc_file("/proc/stat"));
    std::vector<std::vector<int>> snapshots;
    for (int i = 0; i < kSnapshots; ++i) {
        std::this_thread::sleep_for(window / kSnapshots);
        snapshots.push_back(runnable_cpus(self));
    }
    return cpu_busyness(allowed, before, parse_cpu_jiffies(proc_file("/proc/stat")), snapshots);
}

std::vector<int> allowed_cpu_list() {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return out;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) out.push_back(c);
    return out;
}

std::optional<std::uint64_t> parse_run_delay_ns(const std::string& schedstat) {
    std::istringstream in(schedstat);
    std::uint64_t on_cpu = 0, waiting = 0;
    if (!(in >> on_cpu >> waiting)) return std::nullopt;
    return waiting;
}

namespace {

std::map<pid_t, std::uint64_t> run_delays(const std::vector<pid_t>& pids) {
    std::map<pid_t, std::uint64_t> out;
    for (pid_t p : pids)
        if (auto d = parse_run_delay_ns(proc_file(fmt::format("/proc/{}/schedstat", p)))) out[p] = *d;
    return out;
}

std::optional<CpuJiffies> jiffies_of(int cpu) {
    const auto all = parse_cpu_jiffies(proc_file("/proc/stat"));
    const auto it = all.find(cpu);
    return it == all.end() ? std::nullopt : std::optional(it->second);
}

}  // namespace

void InterferenceMeter::start(int cpu, const std::vector<pid_t>& pids) {
    cpu_ = cpu;
    delays_ = run_delays(pids);
    jiffies_ = jiffies_of(cpu);
    t0_ = std::chrono::steady_clock::now();
}

std::optional<InterferenceMeter::Reading> InterferenceMeter::stop(const std::vector<pid_t>& pids) const {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (cpu_ < 0 || seconds <= 0 || delays_.empty()) return std::nullopt;
    Reading r;
    r.seconds = seconds;
    double waited_ns = 0;
    for (const auto& [pid, now] : run_delays(pids))
        if (auto was = delays_.find(pid); was != delays_.end() && now >= was->second) waited_ns += double(now - was->second);
    r.waiting_fraction = waited_ns / 1e9 / seconds;
    const auto end = jiffies_of(cpu_);
    if (jiffies_ && end && end->total > jiffies_->total)
        r.steal_fraction = double(end->steal - jiffies_->steal) / double(end->total - jiffies_->total);
    return r;
}

}  // namespace perflab
