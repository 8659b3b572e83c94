#include "tile_sweep.hpp"

#include <array>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

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

std::optional<L1Geometry> l1_geometry(const MachineInfo& machine, const std::string& probe_path) {
    // Read with the format check cacheprobe's own loader makes; the probe library
    // is not part of the driver (nor of the handout).
    std::ifstream in(probe_path);
    if (in) {
        auto j = nlohmann::json::parse(in, nullptr, false);
        if (!j.is_discarded() && j.value("format", "") == "perflab-cacheprobe/1" && j.contains("levels") &&
            j["levels"].is_array() && !j["levels"].empty()) {
            const auto& l1 = j["levels"][0];
            const auto& line = j.value("line", nlohmann::json::object());
            if (l1.value("level", 0) == 1 && l1.value("certain", false) && l1.value("size_bytes", 0u) > 0 &&
                line.value("certain", false) && line.value("bytes", 0) > 0)
                return L1Geometry{l1["size_bytes"].get<std::size_t>(), line["bytes"].get<int>(),
                                  fmt::format("measured by cacheprobe ({})", probe_path)};
        }
    }
    const CacheLevel* l1 = machine.l1d();
    if (!l1 || !l1->size_bytes || l1->line_bytes <= 0) return std::nullopt;
    return L1Geometry{l1->size_bytes, l1->line_bytes, "reported by " + l1->source};
}

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
