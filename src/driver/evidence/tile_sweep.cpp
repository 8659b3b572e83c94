#include "tile_sweep.hpp"

#include <fmt/format.h>


namespace perflab {
namespace {

constexpr int kSweep[] = {8, 16, 32, 64, 128};

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

std::vector<TilePoint> sweep_reference_tiles(const Plan& like, const MeasuringTools& tools, int dim) {
    Plan plan = like;
    KernelPlan kp{Kernel::rotate, {}, 0, {dim}, {}, {}};
    std::vector<int> tiles;
    for (int tile : kSweep)
        if (tile <= dim) {
            tiles.push_back(tile);
            kp.variants.push_back({Kernel::rotate, 0, fmt::format("reference blocked, tile {}", tile),
                                   Variant::kReferenceTile, tile});
        }
    plan.kernels = {kp};
    Runner runner(plan, {tools.hosts, tools.timing, tools.clearer, tools.inputs});
    const auto measured = runner.run().at(0).variants;  // in plan order
    std::vector<TilePoint> points;
    for (std::size_t i = 0; i < measured.size(); ++i)
        if (measured[i].correct && !measured[i].dims.empty())
            points.push_back({tiles[i], measured[i].dims[0].cpe, measured[i].dims[0].converged});
    return points;
}

}  // namespace perflab
