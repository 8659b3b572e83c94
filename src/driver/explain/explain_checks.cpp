// --explain's judgements, in the order a TA checks things: is the binary the
// student's latest code, what does the grader time, how was it compiled, how does
// each variant use the cache and how much work does it do per pixel, what tile
// would fit, and can the figures be trusted. Each family of checks is a file under
// checks/; this is the table that runs them in that order.
#include <algorithm>
#include <fmt/format.h>

#include "checks/checks.hpp"
#include "checks/support.hpp"
#include "explain.hpp"

namespace perflab {
namespace {

using namespace checks;

// One run of the checks: the findings so far, and per kernel the variants whose
// findings would repeat another's (those found to be naive, and an unregistered
// rotate()/smooth() that runs a registered variant).
struct CheckRun {
    const ExplainData& data;
    std::vector<Finding> out;
    std::vector<std::vector<std::size_t>> repeats;
    // Per kernel: the registered variant whose code rotate()/smooth() runs, said once
    // as that variant, naming both.
    std::vector<std::optional<std::size_t>> wrapped;

    // Naive versions are meant to be slow, and repeats have been said once already:
    // the per-variant checks look at the others.
    bool wraps(std::size_t k, std::size_t i) const {
        const auto gi = graded_index(data.kernels[k].result);
        return k < wrapped.size() && wrapped[k] && gi == i;
    }

    template <class F>
    void examined(F check) {
        for (std::size_t k = 0; k < data.kernels.size(); ++k)
            for (std::size_t i = 0; i < data.kernels[k].result.variants.size(); ++i) {
                const auto& v = data.kernels[k].result.variants[i];
                if (v.correct && !named_naive(v) && !std::count(repeats[k].begin(), repeats[k].end(), i))
                    check(data.kernels[k], i);
            }
    }
};

struct Check {
    const char* families;  // the files under checks/ it runs
    void (*run)(CheckRun&);
};

const Check kChecks[] = {
    {"build", [](CheckRun& r) { stale_build(r.data.build, r.out); }},
    {"graded, naive",
     [](CheckRun& r) {
         for (const auto& e : r.data.kernels) {
             std::vector<std::size_t> skip;
             const std::size_t before = r.out.size();
             const auto alike = graded_function(e, r.out);
             const auto gi = graded_index(e.result);
             const bool said = std::any_of(r.out.begin() + std::ptrdiff_t(before), r.out.end(),
                                           [](const Finding& f) { return f.severity == Severity::problem; });
             // rotate()/smooth() running naive's code is said once: by graded-function when
             // it named a better variant, else of itself (variant-equals-naive); running
             // another variant's (a tail call, or unregistered), as that variant.
             const bool runs_other = alike && gi && !is_naive_function(e, *alike) &&
                                     (!e.graded_registered || e.graded_jumps_to == fn_name(e, *alike));
             if (runs_other || (alike && gi && said)) skip.push_back(*gi);
             r.wrapped.push_back(runs_other ? alike : std::nullopt);
             auto naive = equals_naive(e, skip, r.out);
             skip.insert(skip.end(), naive.begin(), naive.end());
             r.repeats.push_back(std::move(skip));
         }
     }},
    {"build", [](CheckRun& r) { build_flags(r.data.build.build, r.out); }},
    {"memory", [](CheckRun& r) { r.examined([&](auto& e, auto i) { memory_misses(r.data, e, i, r.out); }); }},
    {"memory", [](CheckRun& r) { r.examined([&](auto& e, auto i) { work_per_pixel(e, i, r.out); }); }},
    {"walk", [](CheckRun& r) { r.examined([&](auto& e, auto i) { access_order(r.data, e, i, r.out); }); }},
    {"walk", [](CheckRun& r) { r.examined([&](auto& e, auto i) { tile_shape(r.data, e, i, r.out); }); }},
    // Code facts are not repeats of a naive finding: a naive loop run in threads is
    // still worth saying. Naive-named functions are the student's baseline.
    {"code_facts",
     [](CheckRun& r) {
         for (std::size_t k = 0; k < r.data.kernels.size(); ++k)
             for (std::size_t i = 0; i < r.data.kernels[k].result.variants.size(); ++i)
                 if (const auto& e = r.data.kernels[k];
                     e.result.variants[i].correct && !is_naive_function(e, i) && !r.wraps(k, i)) {
                     code_facts(e, i, r.out);
                     allocation_facts(e, i, r.out);
                 }
     }},
    {"failing_dims, naive, unregistered, tile_advice, ceiling",
     [](CheckRun& r) {
         for (const auto& e : r.data.kernels) {
             failing_dims(e, r.out);
             edited_baseline(e, r.out);
             unregistered(e, r.data.unregistered_uncalled, r.out);
             tile_advice(r.data, e, r.out);
             at_ceiling(e, r.out);
         }
     }},
    {"measurement", [](CheckRun& r) { measurement_quality(r.data, r.out); }},
    {"measurement", [](CheckRun& r) { busy_timings(r.data, r.out); }},
};

// A finding about the variant rotate()/smooth() runs names both.
void name_wrappers(CheckRun& r) {
    for (std::size_t k = 0; k < r.data.kernels.size(); ++k) {
        if (!r.wrapped[k]) continue;
        const KernelEvidence& e = r.data.kernels[k];
        const std::string name = fn_name(e, *r.wrapped[k]);
        for (auto& f : r.out) {
            const auto at = f.title.find(name);
            if (f.kernel == e.kernel && f.variant == e.result.variants[*r.wrapped[k]].name &&
                f.title.find(graded_call(e.kernel)) == std::string::npos && at != std::string::npos)
                f.title.replace(at, name.size(), fmt::format("{} (what {} runs)", name, graded_call(e.kernel)));
        }
    }
}

// Problems first, then what may mislead about the code, context, and last the
// caveats about the machine and what was checked and found fine.
int rank(const Finding& f) {
    if (f.severity == Severity::ok) return 4;
    if (f.id == finding_kind(FindingId::measurement_quality).name) return 3;
    return int(f.severity);
}

}  // namespace

std::vector<Finding> explain_checks(const ExplainData& data) {
    CheckRun run{data, {}, {}, {}};
    for (const Check& c : kChecks) c.run(run);
    name_wrappers(run);
    std::stable_sort(run.out.begin(), run.out.end(), [](const Finding& a, const Finding& b) { return rank(a) < rank(b); });
    return std::move(run.out);
}

}  // namespace perflab
