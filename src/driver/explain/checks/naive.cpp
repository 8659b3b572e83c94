// variant-equals-naive, edited-baseline: a variant that compiles to naive's loop,
// and a naive_ function that is not the handout's naive.
#include <algorithm>
#include <fmt/format.h>
#include "timing.hpp"

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {

// Returns the variants it called out, whose other findings would repeat it.
std::vector<std::size_t> equals_naive(const KernelEvidence& e, const std::vector<std::size_t>& skip,
                                      std::vector<Finding>& out) {
    std::vector<std::size_t> same;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i) {
        const auto& v = e.result.variants[i];
        if (!v.correct || named_naive(v) || std::count(skip.begin(), skip.end(), i)) continue;
        if (!looks_naive(e, i)) continue;
        const auto ratio = time_ratio(v, nullptr, e.dim);
        const auto& mine = pattern_of(e, i);
        const auto& theirs = e.naive.pattern;
        same.push_back(i);
        Finding f = make(FindingId::variant_equals_naive, Severity::problem, e.kernel, v.name,
                         fmt::format("{} executes the naive {}'s loop: same instructions, misses{}", fn_name(e, i),
                                     kernel_name(e.kernel), mine && theirs ? " and access order" : ""));
        f.evidence.emplace_back("dim", double(e.dim));
        f.evidence.emplace_back("CPE", at_dim(v, e.dim)->cpe);
        if (ratio) f.evidence.emplace_back("speedup over naive", *ratio);
        add_figures(f.evidence, "", e.figures[i]);
        add_figures(f.evidence, "naive", e.naive.figures);
        if (mine && theirs) {
            f.evidence.emplace_back("store step", describe_step(mine->store.step, mine->dim));
            f.evidence.emplace_back("naive store step", describe_step(theirs->store.step, theirs->dim));
            f.evidence.emplace_back("load step", describe_step(mine->load.step, mine->dim));
            f.evidence.emplace_back("naive load step", describe_step(theirs->load.step, theirs->dim));
        }
        f.meaning = "it executes as many instructions with as many cache misses as the naive version"
                    + std::string(mine && theirs ? ", in the same access order" : "") +
                    ": whatever was changed, the compiled loop does what naive's does (or it calls "
                    "naive).";
        f.advice = e.kernel == Kernel::rotate
                       ? "change the order of the memory accesses: copy the image in square tiles (see tile-advice)."
                       : "remove the per-pixel work: handle border and interior separately, sum each column of three "
                         "once and reuse it for the neighbouring windows.";
        out.push_back(std::move(f));
    }
    return same;
}

void edited_baseline(const KernelEvidence& e, std::vector<Finding>& out) {
    for (std::size_t i = 0; i < e.result.variants.size(); ++i) {
        if (!is_naive_function(e, i) || !e.result.variants[i].correct) continue;
        const CacheFigures& f = e.figures[i];
        std::vector<std::string> why;
        if (f.instructions && e.naive.figures.instructions && !close(*f.instructions, *e.naive.figures.instructions, 0.10))
            why.push_back(fmt::format("{:.1f} instructions per pixel, the handout's {:.1f}", *f.instructions,
                                      *e.naive.figures.instructions));
        const auto& p = i < e.patterns.size() ? e.patterns[i] : std::nullopt;
        const bool same_order = !p || !e.naive.pattern ||
                                (p->store.step == e.naive.pattern->store.step && p->tiled() == e.naive.pattern->tiled());
        if (!same_order)
            why.push_back(fmt::format("inner stores {}, the handout's {}", describe_step(p->store.step, p->dim),
                                      describe_step(e.naive.pattern->store.step, e.naive.pattern->dim)));
        if (why.empty()) continue;
        // The handout's source, compiled in another file, can call a helper the oracle
        // has inlined: gcc stops inlining avg() into naive_smooth when another function
        // of the file calls it too. Then nothing was edited, and nothing is to restore.
        const bool outlined = same_order && p && e.naive.pattern && p->calls_per_px >= 0.5 &&
                              e.naive.pattern->calls_per_px < 0.5;
        if (outlined)
            why.push_back(fmt::format("calls {}, the handout's naive none", callee_list(*p, 0.5)));
        Finding fd = make(FindingId::edited_baseline, Severity::warning, e.kernel, e.result.variants[i].name,
                          outlined ? fmt::format("{} does not compile to the handout's naive {}: it calls {}",
                                                 fn_name(e, i), kernel_name(e.kernel), callee_list(*p, 0.5))
                                   : fmt::format("{} is not the handout's naive {}", fn_name(e, i), kernel_name(e.kernel)));
        for (const auto& w : why) fd.evidence.emplace_back("differs", w);
        add_figures(fd.evidence, "", f);
        add_figures(fd.evidence, "handout naive", e.naive.figures);
        if (outlined) {
            fd.meaning = "the handout's naive has its helpers inlined; here the compiler calls them, which happens to "
                         "the unchanged handout source when another function of this file calls the same helper. The "
                         "driver's speedups are against its own copy of the handout's naive, so this one's speedup "
                         "need not be 1.";
            fd.advice = fmt::format("nothing to restore if {} is unchanged; to keep it compiled as the handout's, give "
                                    "your own functions their own copy of the helper.",
                                    fn_name(e, i));
        } else {
            fd.meaning = "the driver's speedups are against its own copy of the handout's naive, not against this one; "
                         "a naive_ function edited into something faster is still scored as a variant, never as the "
                         "baseline, and is not a model of the baseline.";
            fd.advice = fmt::format("give the edited code its own name and restore {} to the handout's code if you "
                                    "compare against it.",
                                    fn_name(e, i));
        }
        out.push_back(std::move(fd));
    }
}

}  // namespace perflab::checks
