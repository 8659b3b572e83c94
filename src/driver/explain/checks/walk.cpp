// access-order, tile-shape: how a rotate's loops walk memory, from its trace, next
// to the reference's.
#include <algorithm>
#include <cstdlib>
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
                              p.tiled() ? tile_words(p) : "untiled");
    }
    out.push_back(std::move(f));
}

namespace {

// Tiles that overlap store pixels more than once: the tile loops step by less than
// the tile the inner loops cover (a bound that does not match the step).
constexpr double kOverlap = 1.05;

void add_tile_evidence(Finding& f, const ExplainData& data, const AccessPattern& p,
                       const std::optional<AccessPattern>& ref) {
    f.evidence.emplace_back("tile (dst rows x cols)", fmt::format("{}x{}", p.tile.rows, p.tile.cols));
    if (unrolled_inside_tile(p))
        f.evidence.emplace_back("unrolled body (dst rows x cols)",
                                fmt::format("{}x{}", p.loops->unroll.rows, p.loops->unroll.cols));
    if (p.walk.rows != p.tile.rows || p.walk.cols != p.tile.cols)
        f.evidence.emplace_back("tiles walked as (dst rows x cols)", fmt::format("{}x{}", p.walk.rows, p.walk.cols));
    f.evidence.emplace_back("tile from", p.loops && p.loops->tile.rows ? "the loops the trace ran" : "the store order");
    f.evidence.emplace_back("destination row bytes per tile", double(p.tile.cols * 6));
    add_line(f.evidence, data);
    f.evidence.emplace_back("fetches per destination line", p.dst_fetches_per_line);
    if (ref) {
        f.evidence.emplace_back("reference tile", fmt::format("{}x{}", ref->tile.rows, ref->tile.cols));
        f.evidence.emplace_back("reference fetches per destination line", ref->dst_fetches_per_line);
    }
    if (p.loops && p.loops->tile.rows) {
        f.evidence.emplace_back("stores per destination pixel", p.loops->stores_per_pixel);
        f.evidence.emplace_back("tiles cut by the image's edge", double(p.loops->partial_tiles));
        f.evidence.emplace_back("traced at", double(p.dim));
    }
}

// The tile loops step by less than the tile: every overlapped pixel is copied again.
bool overlapping(const AccessPattern& p, const std::string& name, Finding& f) {
    if (!p.loops || !p.loops->tile.rows || p.loops->stores_per_pixel <= kOverlap) return false;
    const TileShape& step = p.loops->tile_step;
    f.severity = Severity::problem;
    f.title = fmt::format("{} stores each destination pixel {:.1f} times: its {}x{} tiles overlap", name,
                          p.loops->stores_per_pixel, p.tile.rows, p.tile.cols);
    f.meaning = fmt::format("the next tile starts {} rows and {} columns (destination) from the last, inside it: the "
                            "loops inside a tile cover more than the tile loops step by, so the overlap is copied "
                            "again on every pass.",
                            std::abs(step.rows), std::abs(step.cols));
    f.advice = "make the bounds of the loops inside the tile match the tile loops' step (for i0 += B: i < i0 + B).";
    return true;
}

}  // namespace

void tile_shape(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate || i >= e.patterns.size() || !e.patterns[i] || !e.patterns[i]->tiled()) return;
    const AccessPattern& p = *e.patterns[i];
    if (p.threads_per_call >= 1) return;  // no tiles can be read from interleaved threads (see access_order)
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    const int line = traced_line(data);
    Finding f = make(FindingId::tile_shape, Severity::ok, e.kernel, e.result.variants[i].name, "");
    add_tile_evidence(f, data, p, ref);
    const double ref_dst = ref ? std::max(ref->dst_fetches_per_line, 1.0) : 1.0;
    const bool overlap = overlapping(p, name, f);
    if (!overlap && p.dst_fetches_per_line > kMoreFetches * ref_dst) {
        f.severity = Severity::problem;
        const bool short_rows = p.tile.cols * 6 < line;
        f.title = fmt::format("{}'s {} write each destination line {:.1f} times; the reference {:.1f}", name,
                              tile_words(p), p.dst_fetches_per_line, ref ? ref->dst_fetches_per_line : 1.0);
        f.meaning = short_rows ? fmt::format("a tile's destination rows are {} bytes, shorter than a {}-byte line: the "
                                             "rest of each line is written by another tile, after the line has left L1.",
                                             p.tile.cols * 6, line)
                               : "the tile's destination lines do not stay in L1 until the tile is done: the tile is "
                                 "too large for L1, or its rows collide in the same sets.";
        f.advice = short_rows ? fmt::format("make the tile at least {} pixels wide along the destination row (try 16 "
                                            "or 32), or walk next the tile that finishes those lines.",
                                            (line + 5) / 6)
                              : "use a smaller tile (see tile-advice for what fits L1 here).";
    } else if (!overlap) {
        f.title = fmt::format("{}: {} write each destination line {:.1f} times", name, tile_words(p),
                              p.dst_fetches_per_line);
    }
    if (!overlap && p.loops && p.loops->partial_tiles > 0)
        f.meaning += fmt::format("{}{} of the {} tiles at {} are cut short by the image's edge: the tile does not "
                                 "divide the dimension, and the loops' bounds stop at it.",
                                 f.meaning.empty() ? "" : " ", p.loops->partial_tiles, p.loops->tiles, p.dim);
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
