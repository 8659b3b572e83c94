// failing-dims: where a failing function fails and passes, and what the failing
// dimensions share.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

// Where a failing function fails and passes, and what the failing dimensions share
// that the passing ones do not.
struct DimsVerdict {
    std::vector<int> fail, pass;
    std::vector<std::string> kinds;    // "timeout", "crashed", "wrong-result", ...
    std::vector<std::string> details;  // what happened, one per kind
    std::optional<int> hung_at;        // the dimension it did not return at: no larger one was tried
    std::string common;
    bool operator==(const DimsVerdict&) const = default;
};

DimsVerdict dims_verdict(const std::vector<DimCheck>& checks) {
    DimsVerdict v;
    for (const auto& c : checks) {
        (c.passed ? v.pass : v.fail).push_back(c.dim);
        if (!c.passed && !std::count(v.kinds.begin(), v.kinds.end(), c.failure)) {
            v.kinds.push_back(c.failure);
            v.details.push_back(c.detail);
        }
        if (!c.passed && c.failure == "timeout") v.hung_at = c.dim;
    }
    const auto& fail = v.fail;
    const auto& pass = v.pass;
    auto all = [](const std::vector<int>& dims, auto pred) { return std::all_of(dims.begin(), dims.end(), pred); };
    if (pass.empty()) v.common = "it fails at every dimension tried";
    else
        for (int m : {64, 32, 16, 8, 4, 2}) {
            auto divisible = [m](int d) { return d % m == 0; };
            if (all(fail, [&](int d) { return !divisible(d); }) && all(pass, divisible)) {
                v.common = fmt::format("it fails exactly where dim is not a multiple of {}", m);
                break;
            }
        }
    if (v.common.empty() && !fail.empty() && !pass.empty()) {
        const int lo_fail = *std::min_element(fail.begin(), fail.end());
        const int hi_pass = *std::max_element(pass.begin(), pass.end());
        if (lo_fail > hi_pass) v.common = fmt::format("it fails at every dimension above {}", hi_pass);
        else if (*std::max_element(fail.begin(), fail.end()) < *std::min_element(pass.begin(), pass.end()))
            v.common = fmt::format("it fails at every dimension below {}", *std::min_element(pass.begin(), pass.end()));
    }
    if (v.common.empty()) v.common = "no simple rule separates them";
    return v;
}

}  // namespace

namespace {

// What a failure of this kind means and what to try, for this kernel: a hang, a
// division by zero, a crash and a wrong value have different causes, and rotate's
// indexing is no advice for a smooth.
struct Advice {
    std::string meaning, advice;
};

bool has(const DimsVerdict& v, const char* kind) { return std::count(v.kinds.begin(), v.kinds.end(), kind) > 0; }

bool detail_says(const DimsVerdict& v, const char* what) {
    return std::any_of(v.details.begin(), v.details.end(),
                       [&](const std::string& d) { return d.find(what) != std::string::npos; });
}

Advice advice_for(Kernel kernel, const DimsVerdict& v) {
    if (has(v, "timeout"))
        return {"it did not return: a call waits for something that never happens (a semaphore, lock, flag or "
                "thread that only some other function would set up or start), or a loop never reaches its bound.",
                "make the kernel self-contained: everything it waits for must be set up inside the call (or drop the "
                "waiting); check every loop's bound and step. Run it alone under gdb and interrupt it to see where "
                "it waits."};
    if (detail_says(v, "division by zero") || detail_says(v, "SIGFPE"))
        return {"an integer division by zero: some pixel divides by a count or size that is 0 there.",
                kernel == Kernel::smooth
                    ? "check the neighbour count at the corners and edges before dividing (a corner has 4, an edge "
                      "6, the interior 9); never divide by a count the loop can leave at 0."
                    : "check the divisors of the index arithmetic (dim, a tile edge) for 0."};
    if (has(v, "out-of-bounds") || has(v, "crashed"))
        return {"the kernel touched memory outside the two images (or crashed there): an index past the last row "
                "or column.",
                v.common.find("multiple") != std::string::npos
                    ? "bound the inner loops of the last partial tile or unrolled tail by dim: min(i0 + B, dim)."
                    : "bound every loop by dim and check each index against 0 and dim - 1 at the smallest failing "
                      "dimension."};
    if (v.common.find("multiple") != std::string::npos)
        return {"the dimensions where it goes wrong do not divide into its tiles or unrolled steps: the last partial "
                "tile or tail is skipped or overrun.",
                "handle the last partial tile or unrolled tail: bound the inner loops by min(i0 + B, dim)."};
    if (has(v, "unwritten"))
        return {"some pixels of dst are never written: a loop stops short of dim.", "run every loop up to dim."};
    if (kernel == Kernel::rotate)
        return {"the check compares every pixel with the oracle's: wrong pixels at every size point at the indexing.",
                "compare your indexing with RIDX(dim-1-j, i, dim) / the handout's loop at the smallest failing "
                "dimension."};
    return {"the check compares every pixel with the oracle's: a smooth with wrong values sums or divides "
            "differently from the handout's avg() (a channel sum that overflows its type, or another divisor).",
            "compare each channel's sum and divisor with the handout's avg() at the smallest failing dimension: "
            "sums of up to nine 16-bit values need an int each, and corners divide by 4, edges by 6, the interior "
            "by 9."};
}

}  // namespace

void failing_dims(const KernelEvidence& e, std::vector<Finding>& out) {
    const std::string fn = graded_call(e.kernel);
    const auto gi = graded_index(e.result);
    std::vector<DimsVerdict> verdicts;
    for (const auto& checks : e.dim_checks) verdicts.push_back(dims_verdict(checks));
    // The failing variant rotate()/smooth() jumps to, failing where it does: the
    // fact is said once, of both.
    std::optional<std::size_t> run_by_graded;
    for (std::size_t i = 0; i < e.dim_checks.size() && gi && *gi < e.dim_checks.size(); ++i)
        if (i != *gi && !e.dim_checks[i].empty() && !e.dim_checks[*gi].empty() && e.graded_jumps_to &&
            *e.graded_jumps_to == fn_name(e, i) && verdicts[i] == verdicts[*gi])
            run_by_graded = i;
    for (std::size_t i = 0; i < e.dim_checks.size(); ++i) {
        if (e.dim_checks[i].empty() || (run_by_graded && i == *gi)) continue;
        const DimsVerdict& v = verdicts[i];
        auto list = [](const std::vector<int>& dims) {
            return dims.empty() ? std::string("none") : fmt::format("{}", fmt::join(dims, ", "));
        };
        const std::string who =
            run_by_graded == i ? fmt::format("{} runs {}, which", fn, fn_name(e, i)) : fn_name(e, i);
        Finding f = make(FindingId::failing_dims, Severity::problem, e.kernel, e.result.variants[i].name,
                         v.hung_at ? fmt::format("{} does not return at {} (larger dimensions not tried){}", who,
                                                 *v.hung_at, v.pass.empty() ? "" : "; it passes at " + list(v.pass))
                                   : fmt::format("{} fails at {} and passes at {}: {}", who, list(v.fail),
                                                 list(v.pass), v.common));
        f.evidence = {{"fails at", list(v.fail)},
                      {"passes at", list(v.pass)},
                      {"failures", fmt::format("{}", fmt::join(v.kinds, ", "))},
                      {"pattern", v.common}};
        if (run_by_graded == i) f.evidence.emplace_back("run by", fn + " (a tail call to it)");
        if (v.hung_at) f.evidence.emplace_back("not tried after the hang", "the dimensions above " + std::to_string(*v.hung_at));
        const Advice a = advice_for(e.kernel, v);
        f.meaning = a.meaning;
        f.advice = a.advice;
        out.push_back(std::move(f));
    }
}

}  // namespace perflab::checks
