// The loop nest a traced rotate ran, read from where its code jumped back: each
// backward jump target is a loop, and the pixels stored between two jumps back to
// one loop (or to any loop around it) are what that loop's one pass covers. The
// store order alone cannot tell 8x8 tiles walked down a band from the band itself,
// nor a 4x4 unrolled body from a 4x4 tile; the loops can.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace perflab {

// Tile of a destination store sequence (pixel indices), in destination rows and
// columns: dim x dim means untiled.
struct TileShape {
    long rows = 0, cols = 0;
};

// One destination pixel stored, with the backward jumps taken since the last one.
struct StoreStep {
    long pixel = 0;
    std::vector<std::uint64_t> back_edges;
};

struct LoopNest {
    TileShape unroll;        // one pass of the innermost loop's body (1x1: one pixel, not unrolled)
    TileShape tile;          // the largest loop pass that covers a rectangle short of a whole row or column band
    TileShape tile_step;     // how far the next tile's corner is from its predecessor's, in rows and columns
    long partial_tiles = 0;  // passes at that loop level smaller than the tile: the image's edge cut them
    long tiles = 0;
    double stores_per_pixel = 0;  // stores per distinct pixel stored: above 1, passes overlap
};

// Nothing when the stores form no loop pass of a consistent rectangle (the walk is
// all there is, then).
std::optional<LoopNest> loop_nest(const std::vector<StoreStep>& stores, int dim);

}  // namespace perflab
