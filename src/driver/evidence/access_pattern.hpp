// How a kernel walks memory, and what its loop executes, from a valgrind lackey
// trace of one call in its kernel host (kernel-host --simulate ...:1:...). Cache
// totals cannot tell a blocked rotate that stores down destination columns from
// one that stores along rows; the order of the accesses can. From the trace:
//   - the innermost store and load steps (in pixels) and the tile shape they form;
//   - how many times each source and destination line is brought into an L1 of
//     the simulated geometry (1 is the minimum);
//   - per pixel: divide instructions and calls executed, and per call: calls to
//     the allocator and to pthread_create, named from the host's .symtab.
// Deterministic: the host runs with fixed addresses on fixed input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cachegrind.hpp"
#include "driver/core/kernel_host.hpp"
#include "driver/evidence/loop_nest.hpp"
#include "driver/evidence/source_lines.hpp"
#include "driver/evidence/symbol_table.hpp"

namespace perflab {

// The most common step between successive elements, how often it occurs, and
// the median length (in elements) of the runs it forms.
struct StepStats {
    long step = 0;
    double share = 0;
    long run = 0;
};
StepStats dominant_step(const std::vector<long>& sequence);

// The shape the store order forms, in destination rows and columns (dim x dim:
// untiled). Tiles walked down a band form the band.
TileShape tile_shape(const std::vector<long>& dst_pixels, int dim);

struct AccessPattern {
    int dim = 0;
    StepStats store, load;    // steps in pixels between successive distinct pixels
    TileShape tile;           // in destination coordinates: the loops' tile, else the walk's
    TileShape walk;           // what the store order alone forms (a band of tiles is one)
    std::optional<LoopNest> loops;
    double src_fetches_per_line = 0, dst_fetches_per_line = 0;
    double divisions_per_px = 0, calls_per_px = 0;
    std::vector<DivideSite> divides;  // each divide instruction executed, most first where the source says
    double allocations_per_call = 0, threads_per_call = 0;
    std::vector<std::pair<std::string, double>> callees;  // name, calls per pixel, most first
    std::vector<std::string> executed;                    // every function the call ran code of
    // A single row or column of stores is a loop order, not a tile: an untiled,
    // interchanged rotate stores whole destination rows, 1 x dim.
    bool tiled() const { return tile.rows > 1 && tile.cols > 1 && (tile.rows < dim || tile.cols < dim); }
    bool stores_along_rows() const { return store.step == 1 || store.step == -1; }
    bool stores_down_columns() const { return store.step == dim || store.step == -dim; }
    bool loads_down_columns() const { return load.step == dim || load.step == -dim; }
};

struct TraceTarget {
    std::string host_exe;
    HostFunction fn;
    std::uint64_t entry = 0;  // the function the host calls, where the call's trace starts
    int dim = 0;
};

// Traces one call under lackey and analyses it with an L1 of `d1`'s geometry.
std::variant<AccessPattern, SimulationError> trace_access_pattern(const TraceTarget& target, const SimulatedCache& d1);

// Describes a step for a person: "along a row (+1)", "down a column (-dim)".
std::string describe_step(long step, int dim);

}  // namespace perflab
