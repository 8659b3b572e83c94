#include "page_faults.hpp"

#include "common/proc_stat.hpp"

namespace perflab {

std::optional<std::uint64_t> page_faults(pid_t pid) {
    const auto stat = read_proc_stat(pid);
    if (!stat) return std::nullopt;
    return stat->minor_faults + stat->major_faults;
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
