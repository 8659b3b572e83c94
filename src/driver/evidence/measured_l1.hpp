// The L1d as the driver uses it for advice and simulation: what ./cacheprobe
// measured (its saved result) where that is certain, what the OS/CPUID reports
// otherwise - always saying which.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/machine.hpp"
#include "common/probe_result.hpp"

namespace perflab {

struct L1Geometry {
    std::size_t bytes = 0;
    int line = 0;
    std::string source;  // "measured by cacheprobe (/path/to/build/cacheprobe.json)", "reported by sysfs", ...
    bool measured = false;
};

// cacheprobe's measurement when the file holds a certain one, the machine's report otherwise.
std::optional<L1Geometry> l1_geometry(const MachineInfo& machine, const std::string& probe_path = default_probe_result_path());

}  // namespace perflab
