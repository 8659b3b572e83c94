#include "page_faults.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

std::optional<std::uint64_t> page_faults(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    std::string state;
    long long ppid, pgrp, session, tty, tpgid;
    unsigned flags;
    std::uint64_t minflt, cminflt, majflt;
    if (!(fields >> state >> ppid >> pgrp >> session >> tty >> tpgid >> flags >> minflt >> cminflt >> majflt))
        return std::nullopt;
    return minflt + majflt;
}

std::optional<double> page_faults_per_call(KernelHost& host, const HostFunction& fn, int dim, unsigned timeout_seconds,
                                           int calls) {
    if (host.dim() != dim) host.layout(dim);
    if (!host.call(fn, timeout_seconds).outcome.ok()) return std::nullopt;
    const auto before = page_faults(host.pid());
    for (int i = 0; i < calls; ++i)
        if (!host.call(fn, timeout_seconds).outcome.ok()) return std::nullopt;
    const auto after = page_faults(host.pid());
    if (!before || !after || calls <= 0) return std::nullopt;
    return double(*after - *before) / calls;
}

}  // namespace perflab
