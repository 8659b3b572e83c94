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
    std::vector<std::string> kinds;
    std::string common;
    bool operator==(const DimsVerdict&) const = default;
};

DimsVerdict dims_verdict(const std::vector<DimCheck>& checks) {
    DimsVerdict v;
    for (const auto& c : checks) {
        (c.passed ? v.pass : v.fail).push_back(c.dim);
        if (!c.passed && !std::count(v.kinds.begin(), v.kinds.end(), c.failure)) v.kinds.push_back(c.failure);
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
                         fmt::format("{} fails at {} and passes at {}: {}", who, list(v.fail), list(v.pass), v.common));
        f.evidence = {{"fails at", list(v.fail)},
                      {"passes at", list(v.pass)},
                      {"failures", fmt::format("{}", fmt::join(v.kinds, ", "))},
                      {"pattern", v.common}};
        if (run_by_graded == i) f.evidence.emplace_back("run by", fn + " (a tail call to it)");
        f.meaning = "the check compares every pixel with the oracle's; the dimensions where it goes wrong point at the "
                    "loop bounds (tile edges that do not divide dim, unrolled tails) or at indexing.";
        f.advice = v.common.find("multiple") != std::string::npos
                       ? "handle the last partial tile or unrolled tail: bound the inner loops by min(i0 + B, dim)."
                       : "compare your indexing with RIDX(dim-1-j, i, dim) / the handout's loop at the smallest "
                         "failing dimension.";
        out.push_back(std::move(f));
    }
}

}  // namespace perflab::checks
