// graded-function, within-noise: what rotate()/smooth() - the only function the
// grader times - runs, found first (GradedCall), then judged (the verdicts below,
// the first that applies is said).
#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "checks.hpp"
#include "support.hpp"
#include "timing.hpp"

namespace perflab::checks {
namespace {

// rotate()/smooth() and what the evidence shows it running.
class GradedCall {
public:
    GradedCall(const KernelEvidence& e, std::size_t gi) : e_(e), gi_(gi) {}

    std::size_t index() const { return gi_; }
    const VariantResult& result() const { return e_.result.variants[gi_]; }

    // Whether its first instruction jumps to function i (a tail call).
    bool jumps_to(std::size_t i) const { return e_.graded_jumps_to && *e_.graded_jumps_to == fn_name(e_, i); }
    // i's symbol among the functions the traced call executed.
    bool executed(std::size_t i) const {
        const auto& trace = pattern_of(e_, gi_);
        return trace && std::count(trace->executed.begin(), trace->executed.end(), fn_name(e_, i)) > 0;
    }
    // Executed, or (inlined into it) calling the same helpers per pixel: two
    // registered functions of the same code are not told apart by their totals,
    // nor by their walk.
    bool ran(std::size_t i) const {
        const auto& trace = pattern_of(e_, gi_);
        const auto& other = pattern_of(e_, i);
        return executed(i) || (trace && other && !other->callees.empty() && callees(*other) == callees(*trace));
    }
    bool walks_alike(std::size_t i) const { return same_walk(pattern_of(e_, gi_), pattern_of(e_, i)); }
    // Whether the evidence shows it running function i itself: a tail call to it, or
    // its symbol executed. Equal totals, walk and helpers do not: a copy of i's code
    // that gcc inlined has all of them too.
    bool shown_running(std::size_t i) const { return jumps_to(i) || executed(i); }
    std::string running(std::size_t i) const {
        return shown_running(i) ? fn_name(e_, i) : fmt::format("code that matches {}'s", fn_name(e_, i));
    }

    // The registered variant it behaves like: by the code's own facts first (a tail
    // call, or the same simulated instructions and misses), so the answer cannot
    // change with the machine's noise; by timing only where there are no such facts.
    std::optional<std::size_t> look_alike() const {
        const auto& vs = e_.result.variants;
        for (std::size_t i = 0; i < vs.size(); ++i)
            if (i != gi_ && jumps_to(i)) return i;
        for (bool executed_only : {true, false})
            for (std::size_t i = 0; i < vs.size(); ++i)
                if (i != gi_ && vs[i].correct && same_code(e_.figures[gi_], e_.figures[i]) && walks_alike(i) &&
                    (!executed_only || ran(i)))
                    return i;
        for (std::size_t i = 0; i < vs.size(); ++i)
            if (i != gi_ && vs[i].correct &&
                behaves_alike(e_.figures[gi_], e_.figures[i], time_ratio(result(), &vs[i], e_.dim)) && walks_alike(i))
                return i;
        return std::nullopt;
    }

private:
    static std::set<std::string> callees(const AccessPattern& p) {
        std::set<std::string> names;
        for (const auto& [callee, n] : p.callees) names.insert(callee);
        return names;
    }
    const KernelEvidence& e_;
    std::size_t gi_;
};

// What every verdict starts from: the graded call, the look-alike, what it runs
// (by name where the evidence shows it) and the evidence of all that.
struct Found {
    std::string fn;  // "rotate()"
    std::optional<std::size_t> alike;
    std::string runs;
    Evidence ev;
};

Found find(const KernelEvidence& e, const GradedCall& g) {
    Found f{graded_call(e.kernel), g.look_alike(), "", {}};
    f.ev.emplace_back("symbol", e.graded_symbol.empty() ? "unknown (stripped binary)" : e.graded_symbol);
    f.runs = e.graded_symbol.empty() ? f.fn : e.graded_symbol;
    if (e.graded_jumps_to) {
        f.ev.emplace_back("jumps to", *e.graded_jumps_to);
        f.runs = *e.graded_jumps_to;
    }
    if (f.alike) {
        f.ev.emplace_back("behaves like", fn_name(e, *f.alike));
        if (!e.graded_jumps_to) f.runs = g.running(*f.alike);
    }
    f.ev.emplace_back("graded mean speedup over --dims", g.result().complete() ? g.result().mean_speedup : 0.0);
    return f;
}

Finding graded_finding(const KernelEvidence& e, const GradedCall& g, const Found& found, Severity s,
                       std::string title) {
    Finding f = make(FindingId::graded_function, s, e.kernel, g.result().name, std::move(title));
    f.evidence = found.ev;
    return f;
}

// It fails the check: nothing else about it matters.
Finding fails(const KernelEvidence& e, const GradedCall& g, const Found& found) {
    const std::string& fn = found.fn;
    Finding f = graded_finding(e, g, found, Severity::problem, fn + " fails the correctness check");
    f.evidence.emplace_back("error", g.result().failure ? g.result().failure->summary() : "");
    std::optional<std::size_t> passing;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i)
        if (i != g.index() && e.result.variants[i].complete() && !is_naive_function(e, i) && !looks_naive(e, i) &&
            (!passing || e.result.variants[i].mean_speedup > e.result.variants[*passing].mean_speedup))
            passing = i;
    f.meaning = "the grader times " + fn + " only; a wrong result scores nothing, whatever the other variants do.";
    f.advice = passing ? fmt::format("fix {} (see failing-dims for where it fails), or make {} call {}, which passes.",
                                     found.runs, fn, fn_name(e, *passing))
                       : fmt::format("no variant of yours passes that is not naive's loop: fix {} first; failing-dims "
                                     "says at which dimensions it fails and passes.",
                                     found.runs);
    return f;
}

// It runs a naive function (a tail call, or the same simulated code) while another
// registered variant does measurably less: the figures are deterministic, so this
// needs no timing.
std::optional<Finding> runs_naive(const KernelEvidence& e, const GradedCall& g, const Found& found) {
    const std::size_t gi = g.index();
    std::optional<std::size_t> naive_run;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i)
        if (i != gi && is_naive_function(e, i) &&
            ((same_code(e.figures[gi], e.figures[i]) && g.walks_alike(i)) || g.jumps_to(i)))
            naive_run = i;
    std::optional<std::size_t> better;
    for (std::size_t i = 0; naive_run && i < e.result.variants.size(); ++i) {
        if (i == gi || is_naive_function(e, i) || !e.result.variants[i].correct) continue;
        const auto& m = e.figures[i];
        const auto& mine = e.figures[gi];
        if (m.d1() && mine.d1() && *m.d1() < 0.5 * *mine.d1() && (!better || *m.d1() < *e.figures[*better].d1()))
            better = i;
    }
    if (!naive_run || !better) return std::nullopt;
    // By name, the function the call jumped to or executed when that is not the
    // naive one but a copy of its code: "runs naive_rotate" would be untrue. Where
    // neither is shown, only that the code matches naive's.
    const auto& alike = found.alike;
    const bool copy_ran = alike && *alike != *naive_run && !is_naive_function(e, *alike) && g.shown_running(*alike);
    const std::string runs_what = copy_ran ? fmt::format("{}, which does what {} does,", fn_name(e, *alike),
                                                         fn_name(e, *naive_run))
                                           : g.running(*naive_run) + ",";
    const std::string& fn = found.fn;
    Finding f = graded_finding(e, g, found, Severity::problem,
                               fmt::format("{} runs {} while {} is registered and misses far less", fn, runs_what,
                                           fn_name(e, *better)));
    if (copy_ran || g.shown_running(*naive_run)) f.evidence.emplace_back("runs", fn_name(e, copy_ran ? *alike : *naive_run));
    if (copy_ran || !g.shown_running(*naive_run)) f.evidence.emplace_back("same code as", fn_name(e, *naive_run));
    f.evidence.emplace_back("D1 misses/px", e.figures[gi].d1().value_or(0));
    f.evidence.emplace_back("better variant", e.result.variants[*better].name);
    f.evidence.emplace_back("better D1 misses/px", e.figures[*better].d1().value_or(0));
    f.meaning = fn + " is what the grader times: it scores the naive code, not your work.";
    f.advice = fmt::format("make {} call {} (or move its body into {}).", fn, fn_name(e, *better), fn);
    return f;
}

// The fastest other registered variant, among those the grader could be pointed
// at; an unregistered one is unregistered-candidate's to compare, said once.
std::optional<std::size_t> fastest_other(const KernelEvidence& e, const GradedCall& g) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i)
        if (i != g.index() && e.registered(i) && e.result.variants[i].complete() && !is_naive_function(e, i) &&
            (!best || speedup_at(e, e.result.variants[i]) > speedup_at(e, e.result.variants[*best])))
            best = i;
    return best;
}

// Another registered variant is faster: beyond the noise, the grader times the
// wrong function (graded-function); inside it, nothing says which is faster
// (within-noise). Returns whether the verdict was final.
bool faster_other(const KernelEvidence& e, const GradedCall& g, const Found& found, std::vector<Finding>& out) {
    const auto best = fastest_other(e, g);
    const bool runs_best = best && (found.alike == best || g.jumps_to(*best));
    if (!best || runs_best || speedup_at(e, e.result.variants[*best]) <= speedup_at(e, g.result())) return false;
    const auto& b = e.result.variants[*best];
    const std::string& fn = found.fn;
    const Gap c = speedup_gap(e, b, g.result());
    if (c.resolved) {
        Finding f = graded_finding(e, g, found, Severity::problem,
                                   fmt::format("the grader times {}, but {} is faster at {}", fn, fn_name(e, *best), e.dim));
        f.evidence.emplace_back("faster variant", b.name);
        f.evidence.emplace_back("faster speedup", speedup_at(e, b));
        f.evidence.emplace_back(fn + " speedup", speedup_at(e, g.result()));
        add_noise(f.evidence, c, e, b, g.result());
        f.meaning = fmt::format("{} runs {}; the score comes from it, not from the fastest of your functions, and the "
                                "difference is larger than this run's noise.",
                                fn, found.runs);
        f.advice = fmt::format("make {} call {} (or move its body into {}).", fn, fn_name(e, *best), fn);
        out.push_back(std::move(f));
        return true;
    }
    Finding f = make(FindingId::within_noise, Severity::info, e.kernel, g.result().name,
                     fmt::format("{} ({:.2f}) and {} ({:.2f}) differ by less than this run's noise at {}", fn,
                                 speedup_at(e, g.result()), fn_name(e, *best), speedup_at(e, b), e.dim));
    f.evidence = found.ev;
    f.evidence.emplace_back("other variant", b.name);
    f.evidence.emplace_back("other speedup", speedup_at(e, b));
    f.evidence.emplace_back(fn + " speedup", speedup_at(e, g.result()));
    f.evidence.emplace_back("oracle CPE spread in this run", e.noise.spread);
    f.evidence.emplace_back("oracle CPEs compared", double(e.noise.samples));
    add_noise(f.evidence, c, e, b, g.result());
    f.meaning = c.overlap ? "each speedup's 95% interval, from its rounds beside the oracle, reaches into the "
                            "other's: the gap could be the machine, not the code. Nothing says which of the two is "
                            "faster."
                          : "the same oracle, timed in turns with each function of this run, varied by this much: "
                            "a gap inside that band could be the machine, not the code. Nothing says which of the "
                            "two is faster.";
    f.advice = "measure again before changing which function rotate()/smooth() calls: ./driver --explain "
               "--max-samples 50 on a quiet machine, or several runs of ./driver -v.";
    out.push_back(std::move(f));
    return false;
}

}  // namespace

std::optional<std::size_t> graded_function(const KernelEvidence& e, std::vector<Finding>& out) {
    const auto gi = graded_index(e.result);
    if (!gi) return std::nullopt;
    const GradedCall g(e, *gi);
    const Found found = find(e, g);
    if (!g.result().correct) {
        out.push_back(fails(e, g, found));
        return found.alike;
    }
    if (auto f = runs_naive(e, g, found)) {
        out.push_back(std::move(*f));
        return found.alike;
    }
    if (faster_other(e, g, found, out)) return found.alike;
    Finding f = graded_finding(e, g, found, Severity::info, fmt::format("{} runs {}", found.fn, found.runs));
    f.meaning = found.fn + " is what the grader times, and no other registered variant is measurably faster.";
    out.push_back(std::move(f));
    return found.alike;
}

}  // namespace perflab::checks
