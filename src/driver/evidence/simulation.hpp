// Simulated cache misses (--simulate): each variant runs once per dimension in its
// kernel host (kernel-host --simulate) under cachegrind. Cachegrind 3.19 cannot confine collection to one
// call, so the child runs twice - with the call and without - and the difference
// is exactly the call's cost, its callees included (a rotate() that only calls
// naive_rotate, or a memcpy, would otherwise count as nothing).
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "cachegrind.hpp"
#include "driver/core/kernel.hpp"
#include "driver/core/kernel_host.hpp"
#include "measured_l1.hpp"
#include "driver/core/results.hpp"

namespace perflab {

// One function at one dimension, run by its kernel host's --simulate mode.
struct SimulationTarget {
    std::string host_exe;  // the student's host, or the driver's reference host
    HostFunction fn;
    int dim = 0;
};

// Per-pixel rows for the report: D1 read and write misses, LL misses, instructions.
std::variant<CounterValues, SimulationError> simulate(const SimulationTarget& target, const CachegrindGeometry& geometry);

std::string describe_geometry(const CachegrindGeometry& geometry);

// The geometry --simulate models without --cache-geometry: the machine's (see
// geometry_from_machine), with the D1 size and line that ./cacheprobe measured
// where its saved result is certain and cachegrind can model it.
std::variant<CachegrindGeometry, SimulationError> simulation_geometry(const MachineInfo& machine,
                                                                 const std::string& probe_path = default_probe_result_path());

// The geometry a run simulates: `spec` (--cache-geometry) when given, else the machine's.
std::variant<CachegrindGeometry, SimulationError> chosen_geometry(const std::optional<std::string>& spec,
                                                                 const MachineInfo& machine);

// Fills DimResult::simulated of a correct variant, dimension by dimension.
std::optional<SimulationError> simulate_variant(const std::string& host_exe, const HostFunction& fn,
                                                VariantResult& result, const CachegrindGeometry& geometry);

}  // namespace perflab
