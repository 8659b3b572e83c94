#include "tile_sweep.hpp"

#include <array>
#include <fmt/format.h>

#include "reference_catalog.hpp"

namespace perflab {
namespace {

// The runner times plain lab_test_funcs: one instance per swept edge.
template <int Tile>
void reference_rotate_tile(int dim, pixel* src, pixel* dst) {
    reference_catalog()->rotate_blocked_tile(dim, src, dst, Tile);
}

constexpr std::array<std::pair<int, lab_test_func>, 5> kSweep{{{8, reference_rotate_tile<8>},
                                                                {16, reference_rotate_tile<16>},
                                                                {32, reference_rotate_tile<32>},
                                                                {64, reference_rotate_tile<64>},
                                                                {128, reference_rotate_tile<128>}}};

}  // namespace

std::size_t tile_pair_bytes(int edge, int line) {
    std::size_t row_lines = (std::size_t(edge) * sizeof(pixel) + std::size_t(line) - 1) / std::size_t(line) + 1;
    return 2 * std::size_t(edge) * row_lines * std::size_t(line);
}

TileFit tile_fit(const L1Geometry& l1) {
    TileFit fit;
    for (int edge = 1; tile_pair_bytes(edge, l1.line) <= l1.bytes; ++edge) fit.largest = edge;
    for (int edge = 1; tile_pair_bytes(edge, l1.line) <= l1.bytes / 2; edge *= 2) fit.suggested = edge;
    return fit;
}

std::vector<TilePoint> sweep_reference_tiles(const Plan& like, Clock& clock, CacheClearer& clearer, int dim) {
    Plan plan = like;
    KernelPlan kp{Kernel::rotate, {}, nullptr, {dim}, {}, {}};
    std::vector<int> tiles;
    for (const auto& [tile, fn] : kSweep)
        if (tile <= dim) {
            tiles.push_back(tile);
            kp.variants.push_back({Kernel::rotate, fn, fmt::format("reference blocked, tile {}", tile)});
        }
    plan.kernels = {kp};
    Runner runner(plan, clock, clearer);
    const auto measured = runner.run().at(0).variants;  // in plan order
    std::vector<TilePoint> points;
    for (std::size_t i = 0; i < measured.size(); ++i)
        if (measured[i].correct && !measured[i].dims.empty())
            points.push_back({tiles[i], measured[i].dims[0].cpe, measured[i].dims[0].converged});
    return points;
}

}  // namespace perflab
