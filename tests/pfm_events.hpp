// What the counters' tests need to know of this machine's PMU: whether there is one,
// and event names from libpfm4's own tables, so that the tests hold on any machine.
#pragma once

#include <perfmon/pfmlib.h>

#include <filesystem>
#include <optional>
#include <string>

namespace perflab::test {

// The kernel registers a "cpu" (or hybrid "cpu_core") event source only when a PMU exists.
inline bool machine_has_pmu() {
    return std::filesystem::exists("/sys/bus/event_source/devices/cpu") ||
           std::filesystem::exists("/sys/bus/event_source/devices/cpu_core");
}

// An event of a core PMU model libpfm4 knows but did not detect on this machine
// ("amd64_fam19h_zen4::..." on anything but a Zen 4), or none if every model is here.
inline std::optional<std::string> event_of_an_undetected_pmu() {
    if (pfm_initialize() != PFM_SUCCESS) return std::nullopt;
    for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
        pfm_pmu_info_t p{};
        p.size = sizeof p;
        if (pfm_get_pmu_info(pfm_pmu_t(pmu), &p) != PFM_SUCCESS || p.is_present || p.type != PFM_PMU_TYPE_CORE ||
            p.first_event < 0)
            continue;
        pfm_event_info_t e{};
        e.size = sizeof e;
        if (pfm_get_event_info(p.first_event, PFM_OS_PERF_EVENT_EXT, &e) == PFM_SUCCESS)
            return std::string(p.name) + "::" + e.name;
    }
    return std::nullopt;
}

}  // namespace perflab::test
