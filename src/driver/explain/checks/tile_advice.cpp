// tile-advice: which tile edges fit this L1d, what rotate() uses, and what the
// reference blocked rotate measured with each edge in this run.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

// What the reference blocked rotate measured with each swept edge in this run.
void add_sweep(const KernelEvidence& e, Finding& f) {
    auto best = std::min_element(e.tile_sweep.begin(), e.tile_sweep.end(),
                                 [](const TilePoint& a, const TilePoint& b) { return a.cpe < b.cpe; });
    int beat_naive = 0;
    for (const auto& p : e.tile_sweep) {
        f.evidence.emplace_back(fmt::format("reference tile {} CPE", p.tile), p.cpe);
        if (e.naive.cpe && p.cpe > 0 && *e.naive.cpe > p.cpe &&
            compare_speedups(*e.naive.cpe / p.cpe, 1.0, e.noise, p.converged).resolved)
            ++beat_naive;
    }
    // The fastest edge is one only where the others are slower beyond the noise.
    std::vector<int> level_edges;
    for (const auto& p : e.tile_sweep)
        if (&p != &*best && p.cpe > 0 && best->cpe > 0 &&
            !compare_speedups(p.cpe / best->cpe, 1.0, e.noise, p.converged && best->converged).resolved)
            level_edges.push_back(p.tile);
    const std::string level = fmt::format("{}", fmt::join(level_edges, ", "));
    f.evidence.emplace_back("best reference tile", double(best->tile));
    f.evidence.emplace_back("edges within noise of the best", level.empty() ? "none" : level);
    f.evidence.emplace_back("sweep dim", double(e.dim));
    f.evidence.emplace_back("swept tiles measurably faster than naive", double(beat_naive));
    f.advice += level.empty()
                    ? fmt::format(" Measured here at {}: the reference blocked rotate was fastest with B = {} "
                                  "({:.2f} CPE).",
                                  e.dim, best->tile, best->cpe)
                    : fmt::format(" Measured here at {}: the reference blocked rotate took {:.2f} CPE with B = {}, "
                                  "and B = {} came within this run's noise of it: the sweep does not tell these "
                                  "edges apart.",
                                  e.dim, best->cpe, best->tile, level);
    f.advice += fmt::format(" {} of {} swept edges beat naive by more than this run's noise.", beat_naive,
                            e.tile_sweep.size());
}

}  // namespace

void tile_advice(const ExplainData& data, const KernelEvidence& e, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate) return;
    Finding f = make(FindingId::tile_advice, Severity::info, e.kernel, {}, "");
    const std::optional<L1Geometry>& l1 = traced_l1(data);
    if (!l1) {
        f.title = "no L1d size known: no tile advice";
        f.meaning = "neither cacheprobe nor the OS/CPUID reported the first-level data cache.";
        // The handout (no reference kernels) ships no cacheprobe: the course machine's TA has it.
        f.advice = data.reference_kernels
                       ? "run make cacheprobe && ./cacheprobe --save, then ./driver --explain again."
                       : "ask for this machine's L1d size (perflab's ./cacheprobe measures it) and size your tiles from it.";
        out.push_back(std::move(f));
        return;
    }
    const TileFit fit = tile_fit(*l1);
    f.evidence = {{"L1d bytes", double(l1->bytes)},
                  {"line bytes", double(l1->line)},
                  {"L1d from", l1->source},
                  {"largest fitting edge", double(fit.largest)},
                  {"suggested edge", double(fit.suggested)},
                  {"suggested tile pair bytes", double(tile_pair_bytes(fit.suggested, l1->line))}};
    f.title = fmt::format("tile edges up to {} fit a source and a destination tile in the {} KiB L1d; {} leaves room to spare",
                          fit.largest, l1->bytes / 1024, fit.suggested);
    f.meaning = fmt::format("a BxB tile reads B source rows and writes B destination rows of 6B bytes; with a line of "
                            "{} bytes the pair takes 2*B*(ceil(6B/{})+1) lines. {} fills at most half of L1, leaving "
                            "ways free for the conflict misses of power-of-two row strides.",
                            l1->line, l1->line, fit.suggested);
    // What the student already uses, from the graded function's trace.
    std::optional<TileShape> theirs;
    if (auto gi = graded_index(e.result); gi && *gi < e.patterns.size() && e.patterns[*gi] && e.patterns[*gi]->tiled())
        theirs = e.patterns[*gi]->tile;
    if (theirs) {
        f.evidence.emplace_back("rotate() tile (dst rows x cols)", fmt::format("{}x{}", theirs->rows, theirs->cols));
        const bool already = theirs->rows == fit.suggested && theirs->cols == fit.suggested;
        f.advice = already ? fmt::format("rotate() already uses {0}x{0} tiles, the suggested size: the tile edge is not "
                                         "what holds it back (see access-order and tile-shape).",
                                         fit.suggested)
                           : fmt::format("rotate() uses {}x{} tiles; {} is the largest power of two that fits with room "
                                         "to spare.",
                                         theirs->rows, theirs->cols, fit.suggested);
    } else {
        f.advice = fmt::format("block rotate with B = {}, keeping the innermost loop along a destination row.",
                               fit.suggested);
    }
    if (!data.reference_kernels) {
        f.evidence.emplace_back("tile sweep", "none: this build (the student handout) has no reference kernels");
    } else if (!e.tile_sweep.empty()) {
        add_sweep(e, f);
    }
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
