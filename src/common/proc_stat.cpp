#include "proc_stat.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>

namespace perflab {

std::optional<ProcStat> read_proc_stat(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    ProcStat s;
    long long ppid, pgrp, session, tty, tpgid;
    unsigned flags;
    std::uint64_t cminflt;
    if (!(fields >> s.state >> ppid >> pgrp >> session >> tty >> tpgid >> flags >> s.minor_faults >> cminflt >>
          s.major_faults))
        return std::nullopt;
    return s;
}

}  // namespace perflab
