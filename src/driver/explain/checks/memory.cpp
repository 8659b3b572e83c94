// memory-misses, work-per-pixel: how a variant uses the cache and how much work it
// does per pixel, against naive and the reference kernel.
#include <algorithm>
#include <fmt/format.h>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {

void memory_misses(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    const auto& v = e.result.variants[i];
    const CacheFigures& f = e.figures[i];
    if (!f.d1() || !e.naive.figures.d1()) return;
    const double mine = *f.d1(), naive = *e.naive.figures.d1();
    const bool have_ref = e.reference && e.reference->figures.d1();
    const double achievable = achievable_misses(data, e);
    Finding out_f = make(FindingId::memory_misses, Severity::ok, e.kernel, v.name, "");
    add_figures(out_f.evidence, "", f);
    add_figures(out_f.evidence, "naive", e.naive.figures);
    if (have_ref) add_figures(out_f.evidence, "reference", e.reference->figures);
    out_f.evidence.emplace_back("figures from", data.figures_source);
    const std::string name = fn_name(e, i);
    const bool writes = f.d1_write && f.d1_read && *f.d1_write > *f.d1_read;

    // "The same as naive" only within 10% of naive.
    if (misses_achieved(mine, achievable)) {
        out_f.title = fmt::format("{}: {:.2f} D1 misses per pixel, {:.2f}x {}", name, mine, mine / achievable,
                                  have_ref ? "the reference kernel's" : "one miss per line streamed");
        out.push_back(std::move(out_f));
        return;
    }
    const bool as_naive = close(mine, naive, 0.10);
    const bool over_half_naive = mine >= 0.5 * naive;
    out_f.severity = over_half_naive ? Severity::problem : Severity::warning;
    out_f.title = as_naive ? fmt::format("{}: {:.2f} D1 misses per pixel, as many as naive ({:.2f})", name, mine, naive)
                           : fmt::format("{}: {:.2f} D1 misses per pixel, {:.1f}x {} and {:.1f}x naive's", name, mine,
                                         mine / achievable,
                                         have_ref ? "the reference kernel's" : "what streaming needs", mine / naive);
    if (e.kernel == Kernel::rotate) {
        const std::string walked = writes ? "stores walk a destination column" : "loads walk a source column";
        // Tiles narrower than a line fit L1 easily and still miss: from the variant's
        // own tile, where it was traced, that is the cause to name.
        const auto& p = pattern_of(e, i);
        const int line = traced_line(data);
        if (!over_half_naive && p && p->tiled() && p->tile.cols * 6 < line)
            out_f.meaning = fmt::format("its tiles' destination rows are {} bytes, shorter than a {}-byte line: each "
                                        "line is written in pieces by neighbouring tiles, and by the time the next "
                                        "piece comes, L1 has evicted it (see tile-shape). The blocking helps, but "
                                        "the tiles are too narrow, not too large.",
                                        p->tile.cols * 6, line);
        else
            out_f.meaning = fmt::format("the {}: each touches a new cache line, and by the time the next pixel of "
                                        "that line comes, L1 has evicted it. {}",
                                        walked,
                                        over_half_naive ? "Unrolling or pointer arithmetic does not change the order "
                                                          "of the accesses, so the misses stay."
                                                        : "The blocking helps, but the tiles do not fit in L1 with "
                                                          "room to spare.");
        out_f.advice = "tile the loops so each output line is reused while it is in L1: copy BxB blocks with B from "
                       "tile-advice.";
    } else {
        out_f.meaning = "the windows are read in an order that misses in L1 more than one pass over the image needs.";
        out_f.advice = "walk the image row by row, keeping the three source rows in use in L1; avoid scratch arrays "
                       "the size of the image.";
    }
    out.push_back(std::move(out_f));
}

void work_per_pixel(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    const auto& v = e.result.variants[i];
    const auto& mine = e.figures[i].instructions;
    const auto& naive = e.naive.figures.instructions;
    if (!mine || !naive) return;
    const std::optional<double> ref = e.reference ? e.reference->figures.instructions : std::nullopt;
    Finding f = make(FindingId::work_per_pixel, Severity::ok, e.kernel, v.name, "");
    f.evidence = {{"instructions/px", *mine}, {"naive instructions/px", *naive}};
    if (ref) f.evidence.emplace_back("reference instructions/px", *ref);
    const std::string name = fn_name(e, i);
    bool too_much;
    if (ref)
        too_much = *mine > 2 * *ref && *mine - *ref > 4;
    else  // the handout: naive is the only yardstick; rotate is bound by memory, not work
        too_much = e.kernel == Kernel::smooth ? *mine >= 0.8 * *naive : *mine > 1.5 * *naive;
    if (!too_much) {
        f.title = fmt::format("{}: {:.1f} instructions per pixel", name, *mine);
        out.push_back(std::move(f));
        return;
    }
    f.severity = ref ? Severity::problem : Severity::warning;
    f.title = ref ? fmt::format("{}: {:.1f} instructions per pixel, {:.1f}x the reference kernel's", name, *mine, *mine / *ref)
                  : fmt::format("{}: {:.1f} instructions per pixel, {:.0f}% of naive's", name, *mine, 100 * *mine / *naive);
    if (e.kernel == Kernel::smooth) {
        f.meaning = "every pixel still pays for work only some pixels need: bounds checks (min/max) on each "
                    "neighbour, a division by a variable count, a call per pixel or per neighbour.";
        f.advice = "handle the four corners, the edges and the interior separately so the interior has no checks "
                   "and divides by the constant 9 (a multiply); sum each column of three once and slide the window.";
    } else {
        const auto& p = pattern_of(e, i);
        const bool divides = p && p->divisions_per_px >= 0.5;
        if (divides) f.evidence.emplace_back("divisions/px", p->divisions_per_px);
        f.meaning = divides ? "the loop divides to find each pixel's row and column (k / dim, k % dim): a division "
                              "costs tens of cycles, far more than moving the pixel."
                            : "the loop spends instructions on index arithmetic (RIDX multiplies) rather than on "
                              "moving pixels.";
        f.advice = divides ? "loop over rows and columns with two nested loops instead of dividing a flat index."
                           : "step pointers by 1 and by dim instead of recomputing RIDX in the inner loop.";
    }
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
