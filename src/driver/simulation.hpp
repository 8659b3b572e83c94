// Simulated cache misses (--simulate): each variant runs once per dimension in a
// child driver under cachegrind. Cachegrind 3.19 cannot confine collection to one
// call, so the child runs twice - with the call and without - and the difference
// is exactly the call's cost, its callees included (a rotate() that only calls
// naive_rotate, or a memcpy, would otherwise count as nothing).
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "cachegrind.hpp"
#include "kernel.hpp"
#include "measured_l1.hpp"
#include "results.hpp"

namespace perflab {

struct SimulationTarget {
    Kernel kernel;
    int index = -1;  // position among the kernel's registered variants, or one of Variant's k* constants
    int dim = 0;
    unsigned seed = 1729;
};

// "rotate:2:512:1729", the argument of the child's hidden --simulate-run option;
// a trailing ":setup" asks for the run without the call.
std::string simulation_spec(const SimulationTarget& target, bool call);
std::variant<std::pair<SimulationTarget, bool>, std::string> parse_simulation_spec(const std::string& spec);

// Per-pixel rows for the report: D1 read and write misses, LL misses, instructions.
std::variant<CounterValues, SimulationError> simulate(const std::string& driver_exe, const SimulationTarget& target,
                                                      const CacheGeometry& geometry);

std::string describe_geometry(const CacheGeometry& geometry);

// The geometry --simulate models without --cache-geometry: the machine's (see
// geometry_from_machine), with the D1 size and line that ./cacheprobe measured
// where its saved result is certain and cachegrind can model it.
std::variant<CacheGeometry, SimulationError> simulation_geometry(const MachineInfo& machine,
                                                                 const std::string& probe_path = kProbeResultPath);

}  // namespace perflab

namespace perflab {

class Registry;
struct StudentFile;
struct Plan;

// The child's side: prepare the images of `spec` and, unless it is a setup-only
// run, call the variant once. Returns the process exit status.
int simulation_child(const std::string& spec, const Registry& registry, const StudentFile& student);

struct Variant;

// Fills DimResult::simulated of a correct variant, dimension by dimension.
std::optional<SimulationError> simulate_variant(const Variant& variant, VariantResult& result, unsigned seed,
                                                const std::string& driver_exe, const CacheGeometry& geometry);

}  // namespace perflab
