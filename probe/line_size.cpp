#include "line_size.hpp"

namespace perflab {

std::vector<LatencyPoint> measure_split_loads(Clock& clock, char* base, const CurveOptions& options) {
    // Eight nodes: at 2 KiB boundaries they touch 16 lines in 4 sets, which any L1d holds.
    constexpr std::size_t nodes_per_chain = 8;
    // Every boundary once per round, keeping each one's fastest: a slow spell of the
    // machine (a busy sibling thread, a clock still ramping up) then cannot fake a step
    // at one boundary, since it would have to hit the same one in every round.
    constexpr int rounds = 3;
    std::vector<LatencyPoint> out;
    for (int round = 0; round < rounds; ++round) {
        std::vector<LatencyPoint> points;
        for (std::size_t boundary = kSplitMinBoundary; boundary <= kSplitMaxBoundary; boundary *= 2) {
            // An 8-byte pointer at (2m+1) x 2^k - 4 straddles a 2^k boundary and no larger one.
            std::vector<char*> nodes;
            for (std::size_t m = 0; m < nodes_per_chain; ++m)
                nodes.push_back(base + (2 * m + 1) * boundary - 4);
            link_cycle(nodes);
            const auto t = time_chase(clock, nodes.front(), options.loads, 64, options.kbest);
            points.push_back({boundary, t.ns_per_load, t.spread});
        }
        if (round == 0) out = points;
        else keep_fastest(out, points);
    }
    return out;
}

}  // namespace perflab
