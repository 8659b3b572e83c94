// at-ceiling: rotate()/smooth() against what the reference kernels reach in this run.
#include <algorithm>
#include <fmt/format.h>
#include "timing.hpp"

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {

void at_ceiling(const KernelEvidence& e, std::vector<Finding>& out) {
    auto gi = graded_index(e.result);
    if (!gi || !e.result.variants[*gi].complete() || !e.reference || !e.reference->speedup) return;
    const VariantResult& g = e.result.variants[*gi];
    // The references are timed at the comparison dimension only: rotate()/smooth()
    // is held against them there, not by its mean over every dimension of --dims.
    const Timed graded = timed(e, g);
    if (!graded.at || graded.at->speedup <= 0) return;
    const double ref = *e.reference->speedup;
    const TilePoint* best_tile_point = nullptr;
    double best_tile = 0;
    if (e.naive.cpe)
        for (const auto& t : e.tile_sweep)
            if (t.cpe > 0 && *e.naive.cpe / t.cpe > best_tile) best_tile = *e.naive.cpe / t.cpe, best_tile_point = &t;
    const int best_edge = best_tile_point ? best_tile_point->tile : 0;
    const double ceiling = std::max(ref, best_tile);
    // The references are timed alone, without rounds: their speedup is a point, and
    // the graded one's interval holding it leaves the gap unresolved.
    DimResult point;
    point.speedup = point.speedup_low = point.speedup_high = ceiling;
    const bool tile_on_top = best_tile > ref;
    // The reference timed in rounds beside the oracle has an interval of its own.
    if (const auto& in = e.reference->interval; !tile_on_top && in && in->first <= ref && ref <= in->second)
        point.speedup_low = in->first, point.speedup_high = in->second;
    const Timed top{tile_on_top ? fmt::format("reference tile {}", best_edge) : e.reference->name, ceiling, &point,
                    tile_on_top ? best_tile_point->converged : e.reference->converged};
    const Gap c = speedup_gap(e, graded, top);
    // The evidence's "reference speedup" is the reference kernel's: a ceiling set by
    // a swept tile is named as that tile, not as "the reference".
    const std::string ceiling_by =
        tile_on_top ? fmt::format("the reference blocked rotate with B = {}", best_edge) : "the reference";
    Finding f = make(FindingId::at_ceiling, Severity::info, e.kernel, g.name, "");
    f.evidence = {{"graded speedup", graded.speedup},
                  {"reference speedup", ref},
                  {"reference", e.reference->name}};
    if (best_edge) {
        f.evidence.emplace_back("best swept reference tile", double(best_edge));
        f.evidence.emplace_back("best swept reference speedup", best_tile);
    }
    add_noise(f.evidence, c, e.dim, graded, top);
    const std::string fn = graded_call(e.kernel);
    if (!c.resolved && c.ratio < 1) {
        f.title = fmt::format("{} reaches {:.2f}, {} reaches {:.2f}: this run is too noisy to tell whether that is "
                              "the ceiling",
                              fn, graded.speedup, ceiling_by, ceiling);
        f.meaning = c.overlap ? fmt::format("{}'s own 95% interval holds the reference's speedup.", fn)
                              : fmt::format("the gap is inside the spread of the same oracle's timings in this run "
                                            "(+/-{:.0f}%).",
                                            100 * c.tolerance);
        f.advice = "rerun on a quiet machine with a larger --max-samples to see how far below the reference it is.";
    } else if (c.ratio >= 1 && c.resolved) {
        f.title = fmt::format("{} reaches {:.2f}, beyond the {:.2f} that scalar reference code reaches here", fn,
                              graded.speedup, ceiling);
        f.meaning = "the difference is larger than this run's noise: this code does better than the driver's own "
                    "blocked/two-pass kernels on this machine.";
    } else if (c.ratio >= 1) {
        f.title = fmt::format("{} reaches {:.2f}; scalar reference code reaches {:.2f} here: at the ceiling, within noise",
                              fn, graded.speedup, ceiling);
        f.meaning = "on this machine, in this run, the driver's own scalar kernels do no measurably better: the "
                    "speedup is not stuck, it is at what scalar code of this kind reaches here.";
        f.advice = "further gains need a different kind of code (SIMD, unrolling with restrict), not a different tile.";
    } else {
        f.title = fmt::format("{} reaches {:.2f}; {} reaches {:.2f} in the same run ({:.0f}% of it)", fn,
                              graded.speedup, ceiling_by, ceiling, 100 * c.ratio);
        const bool problems = std::any_of(out.begin(), out.end(), [&](const Finding& p) {
            return p.severity == Severity::problem && p.kernel == e.kernel;
        });
        f.meaning = problems ? "the gap to the reference is larger than this run's noise: the problems above are "
                               "where to look first."
                             : "the gap to the reference is larger than this run's noise, but no check found a "
                               "cause in the code: time it again on a quiet machine before changing the code.";
    }
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
