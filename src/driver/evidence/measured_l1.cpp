#include "measured_l1.hpp"

#include <fmt/format.h>

#include "common/probe_result.hpp"

namespace perflab {

std::optional<L1Geometry> l1_geometry(const MachineInfo& machine, const std::string& probe_path) {
    if (auto probed = load_probe_result(probe_path)) {
        const ProbeLevel* l1 = probed->level(1);
        if (l1 && l1->certain && l1->size_bytes > 0 && probed->line_certain && probed->line_bytes > 0)
            return L1Geometry{l1->size_bytes, probed->line_bytes, fmt::format("measured by cacheprobe ({})", probe_path),
                              true};
    }
    const CacheLevel* l1 = machine.l1d();
    if (!l1 || !l1->size_bytes || l1->line_bytes <= 0) return std::nullopt;
    return L1Geometry{l1->size_bytes, l1->line_bytes, "reported by " + l1->source, false};
}

}  // namespace perflab
