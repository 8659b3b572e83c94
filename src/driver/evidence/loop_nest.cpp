#include "loop_nest.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace perflab {
namespace {

// A pass counts as a rectangle when its distinct pixels fill their bounding box.
struct Pass {
    long top = 0, left = 0, rows = 0, cols = 0;
    bool filled = false;
};

Pass pass_of(const std::vector<StoreStep>& s, std::size_t from, std::size_t to, int dim) {
    Pass p;
    long bottom = -1, right = -1;
    p.top = p.left = long(dim);
    std::vector<long> px;
    for (std::size_t k = from; k < to; ++k) {
        const long r = s[k].pixel / dim, c = s[k].pixel % dim;
        p.top = std::min(p.top, r), p.left = std::min(p.left, c);
        bottom = std::max(bottom, r), right = std::max(right, c);
        px.push_back(s[k].pixel);
    }
    std::sort(px.begin(), px.end());
    px.erase(std::unique(px.begin(), px.end()), px.end());
    p.rows = bottom - p.top + 1, p.cols = right - p.left + 1;
    p.filled = long(px.size()) == p.rows * p.cols;
    return p;
}

// The passes of the loop at `level` (1: the innermost): the stores between jumps
// back to it or to a loop around it.
std::vector<Pass> passes(const std::vector<StoreStep>& s, const std::vector<int>& level_before, int level, int dim) {
    std::vector<Pass> out;
    std::size_t from = 0;
    for (std::size_t k = 1; k <= s.size(); ++k)
        if (k == s.size() || level_before[k] >= level) {
            out.push_back(pass_of(s, from, k, dim));
            from = k;
        }
    return out;
}

// The full pass's shape, when more than half of the passes fill a rectangle: the
// largest, since the image's edge only cuts passes short (at 64, 48x48 tiles are
// one whole tile and three cut ones).
std::optional<TileShape> common_shape(const std::vector<Pass>& ps) {
    std::optional<TileShape> best;
    std::size_t filled = 0;
    for (const Pass& p : ps) {
        if (!p.filled) continue;
        ++filled;
        if (!best || p.rows * p.cols > best->rows * best->cols) best = TileShape{p.rows, p.cols};
    }
    if (2 * filled <= ps.size()) return std::nullopt;
    return best;
}

}  // namespace

std::optional<LoopNest> loop_nest(const std::vector<StoreStep>& s, int dim) {
    if (s.size() < 2 || dim <= 0) return std::nullopt;
    // The innermost loop jumps back most often: rank the loops by that.
    std::unordered_map<std::uint64_t, std::size_t> jumps;
    for (const StoreStep& st : s)
        for (std::uint64_t target : st.back_edges) ++jumps[target];
    std::vector<std::pair<std::size_t, std::uint64_t>> order;
    for (const auto& [target, n] : jumps) order.emplace_back(n, target);
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::unordered_map<std::uint64_t, int> rank;
    for (std::size_t r = 0; r < order.size(); ++r) rank[order[r].second] = int(r) + 1;
    // Leaving an inner loop for an outer one's next pass is a boundary of both.
    std::vector<int> level_before(s.size(), 0);
    for (std::size_t k = 0; k < s.size(); ++k)
        for (std::uint64_t target : s[k].back_edges) level_before[k] = std::max(level_before[k], rank[target]);

    LoopNest nest;
    const std::vector<Pass> body = passes(s, level_before, 1, dim);
    const auto unroll = common_shape(body);
    if (!unroll) return std::nullopt;
    nest.unroll = *unroll;
    // A pass that spans a whole row or column of the image is a band (or the image),
    // not a tile; the largest pass short of that is the tile.
    for (int level = 1; level <= int(order.size()); ++level) {
        const std::vector<Pass> ps = level == 1 ? body : passes(s, level_before, level, dim);
        const auto shape = common_shape(ps);
        if (!shape || shape->rows >= dim || shape->cols >= dim) break;
        if (shape->rows < 2 || shape->cols < 2) continue;
        nest.tile = *shape;
        nest.tiles = long(ps.size());
        nest.partial_tiles = 0;
        std::map<std::pair<long, long>, std::size_t> steps;
        for (std::size_t k = 0; k < ps.size(); ++k) {
            if (ps[k].rows * ps[k].cols < shape->rows * shape->cols) ++nest.partial_tiles;
            if (k > 0) ++steps[{ps[k].top - ps[k - 1].top, ps[k].left - ps[k - 1].left}];
        }
        if (!steps.empty()) {
            auto step = std::max_element(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.second < b.second; });
            nest.tile_step = {step->first.first, step->first.second};
        }
    }
    std::vector<long> px;
    px.reserve(s.size());
    for (const StoreStep& st : s) px.push_back(st.pixel);
    std::sort(px.begin(), px.end());
    nest.stores_per_pixel = double(px.size()) / double(std::max<std::size_t>(1, std::unique(px.begin(), px.end()) - px.begin()));
    return nest;
}

}  // namespace perflab
