// The course's model machine (docs/model.md): the caches a kernel's accesses are
// simulated in, what an executed instruction costs by its class, what a miss costs
// at each level, and the seed of the inputs the model runs on. It lives in the
// scoring policy's [model] table; nothing in it comes from the machine that runs it,
// so the same binary gets the same modelled figures everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <toml++/toml.h>

#include "instruction_classes.hpp"

namespace perflab {

struct ModelCache {
    std::uint64_t bytes = 0;
    int ways = 0;
    bool operator==(const ModelCache&) const = default;
};

struct MachineModel {
    int line_bytes = 64;
    ModelCache l1d{32 * 1024, 8};
    ModelCache ll{1024 * 1024, 16};
    // Cycles per executed instruction of each class (reciprocal throughputs).
    std::array<double, kInstrClassCount> instr_cycles{};
    double load_cycles = 0;   // per data read
    double store_cycles = 0;  // per data write
    double l1d_miss_cycles = 0;  // a data access that misses L1d and hits LL
    double ll_miss_cycles = 0;   // ... and misses LL too (added to the L1d miss's)
    // A data write's misses cost this many times a read's: the hardware's prefetchers
    // follow a strided stream of loads, not of stores, and a written line goes back
    // dirty (docs/model.md).
    double store_miss_factor = 1;
    // The modelled runs' inputs come from this seed. Published, a kernel could
    // recognise them and copy a stored answer: a course sets its own (docs/model.md).
    std::uint32_t seed = 0;
    // A model speedup above this many times the timed one flags the variant: code
    // that runs otherwise under the simulator than on the machine.
    double timing_bound = 0;
    bool operator==(const MachineModel&) const = default;
};

// The published default (docs/model.md says where each figure comes from).
MachineModel default_machine_model();

// The [model] table of a policy over the defaults; throws std::runtime_error with one
// line naming `source` and the key that is unknown or wrong.
MachineModel parse_machine_model(const toml::table& table, const std::string& source);

// The [model] table (and its [model.cycles]) as policy TOML that parses back to `m`.
std::string machine_model_toml(const MachineModel& m);

// [model.cycles] as (key, cycles) in its order: the instruction classes, load, store.
std::vector<std::pair<std::string_view, double>> model_cycles(const MachineModel& m);

// One line for a text report: "L1d 32 KiB 8-way, LL 1 MiB 16-way, 64 B lines; ...".
std::string describe_machine_model(const MachineModel& m);

}  // namespace perflab
