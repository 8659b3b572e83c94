// Tile-size advice for rotate: which tile edges let a source tile and its
// destination tile sit in L1 together, from the measured or reported L1d, and -
// where the reference kernels are built in - where the reference blocked rotate
// is actually fastest on this machine.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/machine.hpp"
#include "measured_l1.hpp"
#include "driver/core/runner.hpp"

namespace perflab {

// Bytes of L1 an edge x edge rotate tile occupies with its destination tile: each
// of the 2*edge rows spans ceil(6*edge/line) lines, plus one when it straddles.
std::size_t tile_pair_bytes(int edge, int line);

struct TileFit {
    int largest = 0;    // largest edge whose tile pair fits in L1
    int suggested = 0;  // largest power of two whose pair fills at most half of L1,
                        // leaving ways for the conflicts of power-of-two row strides
};
TileFit tile_fit(const L1Geometry& l1);

struct TilePoint {
    int tile = 0;
    double cpe = 0;
    bool converged = false;
};

// The reference blocked rotate at `dim` with edges 8 to 128 (at most `dim`), timed
// with `like`'s K-best settings, in the reference host (which must have the
// reference kernels: KernelHosts::has_references()).
std::vector<TilePoint> sweep_reference_tiles(const Plan& like, const MeasuringTools& tools, int dim);

}  // namespace perflab
