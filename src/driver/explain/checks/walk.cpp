// access-order, tile-shape: how a rotate's loops walk memory, from its trace, next
// to the reference's.
#include <algorithm>
#include <fmt/format.h>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

// A line fetched this many times more than the reference's is a real difference:
// the trace and the simulated L1 are deterministic.
constexpr double kMoreFetches = 1.5;

}  // namespace

void access_order(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate || i >= e.patterns.size() || !e.patterns[i]) return;
    const AccessPattern& p = *e.patterns[i];
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    Finding f = make(FindingId::access_order, Severity::ok, e.kernel, e.result.variants[i].name, "");
    if (p.threads_per_call >= 1) {
        // The trace holds every thread's accesses, interleaved wherever valgrind switched
        // threads: no loop order can be read from it (two naive halves once looked tiled),
        // so none is shown as evidence either.
        f.evidence = {{"threads created per call", p.threads_per_call}, {"traced at", double(p.dim)}};
        f.title = fmt::format("{}: its {:.0f} threads' accesses interleave in the trace, so no loop order is read "
                              "from it",
                              name, p.threads_per_call);
        out.push_back(std::move(f));
        return;
    }
    add_pattern(f.evidence, "", p);
    if (ref) add_pattern(f.evidence, "reference", *ref);
    f.evidence.emplace_back("traced at", double(p.dim));
    add_line(f.evidence, data);
    const int line = traced_line(data);
    if (p.tiled() && p.stores_down_columns() && (!ref || ref->stores_along_rows())) {
        f.severity = Severity::problem;
        // The direction is the step's sign: rotate's naive loop walks up (-dim).
        f.title = fmt::format("{} is tiled, but its innermost loop stores {} a destination column{}", name,
                              p.store.step > 0 ? "down" : "up", ref ? "; the reference's stores along a row" : "");
        f.meaning = fmt::format("each store of the inner loop lands on another destination line, so the store buffer "
                                "and the line fill buffers are full of half-written lines; {}the order costs time. "
                                "Row-wise stores write each line in one burst.",
                                misses_comparable(data, e, i) ? fmt::format("the cache totals look like {}, but ",
                                                                             e.reference ? "the reference's" : "streaming's")
                                                               : "");
        f.advice = fmt::format("in {}, swap the two loops inside the tile so the innermost one runs along a "
                               "destination row: for each source column j, for each source row i, "
                               "dst[RIDX(dim-1-j, i, dim)] = src[RIDX(i, j, dim)].",
                               name);
        // The tile walk may also re-read source lines: said separately below.
        if (ref && p.src_fetches_per_line > kMoreFetches * std::max(ref->src_fetches_per_line, 1.0)) {
            out.push_back(f);
            f.title.clear();
        }
    }
    if (f.title.empty() && ref && p.src_fetches_per_line > kMoreFetches * std::max(ref->src_fetches_per_line, 1.0)) {
        f.severity = Severity::problem;
        f.title = fmt::format("{} brings each source line into L1 {:.1f} times; the reference {:.1f}", name,
                              p.src_fetches_per_line, ref->src_fetches_per_line);
        f.meaning = p.tiled()
                        ? fmt::format("the tiles are walked so that the part of a source line the next tile needs is "
                                      "evicted before that tile runs: a {}-pixel tile row is {} bytes, and a {}-byte "
                                      "line is shared between neighbouring tiles.",
                                      p.tile.rows, p.tile.rows * 6, line)
                        : "the loads walk down source columns without tiling: each line is evicted before its next "
                          "pixel is read.";
        f.advice = p.tiled() ? "walk the tiles so that tiles sharing source lines run one after the other (the source "
                               "row direction in the inner tile loop), or use tiles whose source rows span whole lines."
                             : "tile the loops (see tile-advice).";
    } else if (!f.title.empty()) {
    } else if (!p.tiled() && p.stores_along_rows() && p.loads_down_columns()) {
        f.severity = Severity::problem;
        f.title = fmt::format("{} stores along destination rows but loads down source columns, untiled", name);
        f.meaning = "the loops were interchanged: now the loads miss where naive's stores did.";
        f.advice = "tile the loops so the source lines a tile reads stay in L1 (see tile-advice).";
    } else {
        f.title = fmt::format("{}: inner stores {}, {}", name, describe_step(p.store.step, p.dim),
                              p.tiled() ? fmt::format("tiles of {}x{}", p.tile.rows, p.tile.cols) : "untiled");
    }
    out.push_back(std::move(f));
}

void tile_shape(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate || i >= e.patterns.size() || !e.patterns[i] || !e.patterns[i]->tiled()) return;
    const AccessPattern& p = *e.patterns[i];
    if (p.threads_per_call >= 1) return;  // no tiles can be read from interleaved threads (see access_order)
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    const int line = traced_line(data);
    Finding f = make(FindingId::tile_shape, Severity::ok, e.kernel, e.result.variants[i].name, "");
    f.evidence.emplace_back("tile (dst rows x cols)", fmt::format("{}x{}", p.tile.rows, p.tile.cols));
    f.evidence.emplace_back("destination row bytes per tile", double(p.tile.cols * 6));
    add_line(f.evidence, data);
    f.evidence.emplace_back("fetches per destination line", p.dst_fetches_per_line);
    if (ref) {
        f.evidence.emplace_back("reference tile", fmt::format("{}x{}", ref->tile.rows, ref->tile.cols));
        f.evidence.emplace_back("reference fetches per destination line", ref->dst_fetches_per_line);
    }
    const double ref_dst = ref ? std::max(ref->dst_fetches_per_line, 1.0) : 1.0;
    if (p.dst_fetches_per_line > kMoreFetches * ref_dst) {
        f.severity = Severity::problem;
        const bool short_rows = p.tile.cols * 6 < line;
        f.title = fmt::format("{}'s {}x{} tiles write each destination line {:.1f} times; the reference {:.1f}", name,
                              p.tile.rows, p.tile.cols, p.dst_fetches_per_line, ref ? ref->dst_fetches_per_line : 1.0);
        f.meaning = short_rows ? fmt::format("a tile's destination rows are {} bytes, shorter than a {}-byte line: the "
                                             "rest of each line is written by another tile, after the line has left L1.",
                                             p.tile.cols * 6, line)
                               : "the tile's destination lines do not stay in L1 until the tile is done: the tile is "
                                 "too large for L1, or its rows collide in the same sets.";
        f.advice = short_rows ? fmt::format("make the tile at least {} pixels wide along the destination row (try 16 "
                                            "or 32), or walk next the tile that finishes those lines.",
                                            (line + 5) / 6)
                              : "use a smaller tile (see tile-advice for what fits L1 here).";
    } else {
        f.title = fmt::format("{}: {}x{} tiles write each destination line {:.1f} times", name, p.tile.rows, p.tile.cols,
                              p.dst_fetches_per_line);
    }
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
