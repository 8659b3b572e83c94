// --explain's judgements, in the order a TA checks things: is the binary the
// student's latest code, what does the grader time, how was it compiled, how does
// each variant use the cache and how much work does it do per pixel, what tile
// would fit, and can the figures be trusted. Pure functions of ExplainData.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <sstream>

#include "explain.hpp"

namespace perflab {
namespace {

// Deterministic simulated figures of the same code agree to well under 1%; the
// margins leave room for a wrapper's call and for PMU counting noise.
constexpr double kSameInstructions = 0.05;
constexpr double kSameMisses = 0.10;
// Timings of the same code on a shared VM: within this factor they are noise.
constexpr double kSameTiming = 1.25;
// A faster variant than the graded one matters beyond this margin.
constexpr double kFasterMargin = 1.10;
constexpr double kBusyCpu = 0.10;

bool close(double a, double b, double tolerance) {
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string when(long t) {
    std::time_t tt = t;
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
    return buf;
}

Finding make(std::string id, Severity s, std::optional<Kernel> k, std::optional<std::string> variant, std::string title) {
    Finding f;
    f.id = std::move(id);
    f.severity = s;
    f.kernel = k;
    f.variant = std::move(variant);
    f.title = std::move(title);
    return f;
}

// ---- 1. stale-build ----

void stale_build(const BuildState& b, std::vector<Finding>& out) {
    const BuildInfo& info = b.build;
    Evidence ev{{"built from", info.kernels_path}, {"built at", when(info.build_time)}};
    if (!b.recorded.mtime) {
        Finding f = make("stale-build", Severity::warning, {}, {}, "the kernels file this driver was built from is gone");
        f.evidence = ev;
        f.meaning = "./driver runs the code it was linked with; nothing shows which file holds that code now.";
        f.advice = "run make (or make KERNELS=path/to/kernels.c) to build from the file you are editing.";
        out.push_back(std::move(f));
    } else if (*b.recorded.mtime > info.build_time || b.recorded.sha256 != info.kernels_sha256) {
        Finding f = make("stale-build", Severity::problem, {}, {}, "kernels.c changed after ./driver was built");
        f.evidence = ev;
        f.evidence.emplace_back("file modified at", when(*b.recorded.mtime));
        f.evidence.emplace_back("contents changed", b.recorded.sha256 != info.kernels_sha256 ? "yes" : "no (only touched)");
        f.meaning = "./driver still runs the code of its last build: edits made since are not what is measured.";
        f.advice = "run make, then run ./driver again.";
        out.push_back(std::move(f));
    }
    if (b.local && b.local->mtime) {
        const bool newer = *b.local->mtime > info.build_time;
        Finding f = make("stale-build", newer ? Severity::problem : Severity::warning, {}, {},
                         newer ? "./kernels.c is newer than ./driver, which was built from another file"
                               : "./driver was built from another file than ./kernels.c");
        f.evidence = ev;
        f.evidence.emplace_back("./kernels.c", b.local->path);
        f.evidence.emplace_back("./kernels.c modified at", when(*b.local->mtime));
        f.meaning = "the figures are those of " + info.kernels_path + ", not of the kernels.c in this directory.";
        f.advice = "run make KERNELS=kernels.c (or make) in this directory.";
        out.push_back(std::move(f));
    }
    if (out.empty() || out.back().id != "stale-build") {
        Finding f = make("stale-build", Severity::ok, {}, {}, "./driver was built from the current kernels file");
        f.evidence = ev;
        out.push_back(std::move(f));
    }
}

// ---- 2. graded-function, variant-equals-naive ----

std::optional<std::size_t> graded_index(const KernelResult& r) {
    for (std::size_t i = 0; i < r.variants.size(); ++i)
        if (r.variants[i].graded) return i;
    return std::nullopt;
}

const DimResult* at_dim(const VariantResult& v, int dim) {
    for (const auto& d : v.dims)
        if (d.dim == dim) return &d;
    return nullptr;
}

// How much faster `a` ran than `b`, by their speedups: each was timed interleaved
// with the oracle, which cancels most of the noise that their CPEs, taken at
// different moments, carry. Naive is `b` with no result: speedup 1.
std::optional<double> time_ratio(const VariantResult& a, const VariantResult* b, int dim) {
    const DimResult* da = at_dim(a, dim);
    const DimResult* db = b ? at_dim(*b, dim) : nullptr;
    if (!da || da->speedup <= 0 || (b && (!db || db->speedup <= 0))) return std::nullopt;
    return da->speedup / (db ? db->speedup : 1.0);
}

// Equal simulated instruction and miss counts: deterministic, unlike a timing.
bool same_code(const CacheFigures& a, const CacheFigures& b) {
    return a.instructions && b.instructions && a.d1() && b.d1() &&
           close(*a.instructions, *b.instructions, kSameInstructions) && close(*a.d1(), *b.d1(), kSameMisses);
}

// The same machine code, as far as the evidence can tell: equal instruction and
// miss counts (when there are figures) and timings within noise.
bool behaves_alike(const CacheFigures& a, const CacheFigures& b, std::optional<double> ratio) {
    if (!ratio || *ratio > kSameTiming || *ratio < 1 / kSameTiming) return false;
    if (a.instructions && b.instructions && a.d1() && b.d1()) return same_code(a, b);
    return close(*ratio, 1.0, 0.05);  // timing alone: demand more
}

// Equal totals are not the same loop: a loop interchange, or any correct rotate at
// a size that fits L1, has the same instruction and miss counts but walks memory
// another way. Only the same steps and tile make it the same loop; without a trace
// on either side the totals are all there is.
bool same_walk(const std::optional<AccessPattern>& a, const std::optional<AccessPattern>& b) {
    return !a || !b ||
           (a->store.step == b->store.step && a->load.step == b->load.step && a->tile.rows == b->tile.rows &&
            a->tile.cols == b->tile.cols);
}

const std::optional<AccessPattern>& pattern_of(const KernelEvidence& e, std::size_t i) {
    static const std::optional<AccessPattern> none;
    return i < e.patterns.size() ? e.patterns[i] : none;
}

bool named_naive(const VariantResult& v) { return lower(short_name(v.name)).find("naive") != std::string::npos; }

// A variant by its function's name in the binary; the full description where the
// binary has no symbol for it (never the text cut at the first ':').
std::string fn_name(const KernelEvidence& e, std::size_t i) {
    if (i < e.symbols.size() && !e.symbols[i].empty()) return e.symbols[i];
    return e.result.variants[i].name;
}

bool is_naive_function(const KernelEvidence& e, std::size_t i) {
    return named_naive(e.result.variants[i]) || lower(fn_name(e, i)).find("naive") != std::string::npos;
}

bool converged_at(const VariantResult& v, int dim) {
    const DimResult* d = nullptr;
    for (const auto& r : v.dims)
        if (r.dim == dim) d = &r;
    return d && d->converged;
}

// A speedup at the comparison dimension, 0 where there is none. Comparisons use it,
// never the mean over --dims: the noise band and the 95% intervals are that
// dimension's, and a mean over other dimensions would be held against them.
double speedup_at(const KernelEvidence& e, const VariantResult& v) {
    const DimResult* d = at_dim(v, e.dim);
    return d ? d->speedup : 0;
}

// One side of a speedup comparison: its speedup and, where it was timed in rounds
// with the oracle, its 95% interval, both at the comparison dimension.
struct Timed {
    std::string name;
    double speedup = 0;
    const DimResult* at = nullptr;
    bool converged = true;
};

Timed timed(const KernelEvidence& e, const VariantResult& v) {
    return {short_name(v.name), speedup_at(e, v), at_dim(v, e.dim), converged_at(v, e.dim)};
}

// A reference's speedup is a point (low == high): nothing of its own to show.
bool has_interval(const Timed& t) { return t.at && t.at->speedup_high > t.at->speedup_low; }

struct Gap : SpeedupGap {
    bool overlap = false;  // resolved by the band, but the two 95% intervals overlap: unresolved
};

// How `a`'s speedup compares with `b`'s at the comparison dimension, against the
// run's noise band and, where they overlap, each speedup's own 95% interval: then
// the run cannot say which is faster, whatever the oracle's spread allows.
Gap speedup_gap(const KernelEvidence& e, const Timed& a, const Timed& b) {
    Gap c{compare_speedups(a.speedup, b.speedup, e.noise, a.converged && b.converged)};
    if (c.resolved && a.at && b.at && speedup_intervals_overlap(*a.at, *b.at)) c.resolved = false, c.overlap = true;
    return c;
}

Gap speedup_gap(const KernelEvidence& e, const VariantResult& a, const VariantResult& b) {
    return speedup_gap(e, timed(e, a), timed(e, b));
}

// Both sides' intervals beside the band, so that "resolved: no" shows its reason,
// and the dimension all of them were measured at.
void add_noise(Evidence& ev, const Gap& c, int dim, const Timed& a, const Timed& b) {
    ev.emplace_back("dim", double(dim));
    ev.emplace_back("ratio", c.ratio);
    ev.emplace_back("noise band (+/-)", c.tolerance);
    for (const Timed* t : {&a, &b})
        if (has_interval(*t))
            ev.emplace_back(t->name + " 95% interval", fmt::format("{:.2f}-{:.2f}", t->at->speedup_low, t->at->speedup_high));
    ev.emplace_back("resolved", c.resolved  ? "yes"
                                : c.overlap ? "no: the 95% intervals overlap"
                                            : "no: within this run's noise band");
}

void add_noise(Evidence& ev, const Gap& c, const KernelEvidence& e, const VariantResult& a,
               const VariantResult& b) {
    add_noise(ev, c, e.dim, timed(e, a), timed(e, b));
}

void add_figures(Evidence& ev, const std::string& who, const CacheFigures& f) {
    auto put = [&](const char* what, const std::optional<double>& v) {
        if (v) ev.emplace_back(who.empty() ? std::string(what) : who + " " + what, *v);
    };
    put("D1 read misses/px", f.d1_read);
    put("D1 write misses/px", f.d1_write);
    put("D1 misses/px", f.d1());
    put("LL misses/px", f.ll);
    put("instructions/px", f.instructions);
}

// Returns the registered variant rotate()/smooth() behaves like, if any.
std::optional<std::size_t> graded_function(const KernelEvidence& e, std::vector<Finding>& out) {
    const std::string fn = fmt::format("{}()", kernel_name(e.kernel));
    auto gi = graded_index(e.result);
    if (!gi) return std::nullopt;
    const VariantResult& g = e.result.variants[*gi];
    const int dim = e.dim;
    Evidence ev{{"symbol", e.graded_symbol.empty() ? "unknown (stripped binary)" : e.graded_symbol}};
    std::string runs = e.graded_symbol.empty() ? fn : e.graded_symbol;
    if (e.graded_jumps_to) {
        ev.emplace_back("jumps to", *e.graded_jumps_to);
        runs = *e.graded_jumps_to;
    }
    // Which registered variant it runs: by the code's own facts first (a tail call,
    // or the same simulated instructions and misses), so the answer cannot change
    // with the machine's noise; by timing only where there are no such facts.
    std::optional<std::size_t> alike;
    for (std::size_t i = 0; i < e.result.variants.size() && !alike; ++i)
        if (i != *gi && e.graded_jumps_to && *e.graded_jumps_to == fn_name(e, i)) alike = i;
    const auto walks_alike = [&](std::size_t i) { return same_walk(pattern_of(e, *gi), pattern_of(e, i)); };
    // Among look-alikes, first one the traced call executed or (inlined into it) one
    // calling the same helpers per pixel: two registered functions of the same
    // code are not told apart by their totals, nor by their walk.
    const auto& graded_trace = pattern_of(e, *gi);
    const auto callee_names = [](const AccessPattern& p) {
        std::set<std::string> names;
        for (const auto& [callee, n] : p.callees) names.insert(callee);
        return names;
    };
    // i's symbol among the functions the traced call executed.
    const auto executed = [&](std::size_t i) {
        return graded_trace &&
               std::count(graded_trace->executed.begin(), graded_trace->executed.end(), fn_name(e, i)) > 0;
    };
    const auto ran = [&](std::size_t i) {
        const auto& other = pattern_of(e, i);
        return executed(i) ||
               (graded_trace && other && !other->callees.empty() && callee_names(*other) == callee_names(*graded_trace));
    };
    for (bool executed_only : {true, false})
        for (std::size_t i = 0; i < e.result.variants.size() && !alike; ++i)
            if (i != *gi && e.result.variants[i].correct && same_code(e.figures[*gi], e.figures[i]) &&
                walks_alike(i) && (!executed_only || ran(i)))
                alike = i;
    for (std::size_t i = 0; i < e.result.variants.size() && !alike; ++i) {
        const auto& v = e.result.variants[i];
        if (i != *gi && v.correct && behaves_alike(e.figures[*gi], e.figures[i], time_ratio(g, &v, dim)) &&
            walks_alike(i))
            alike = i;
    }
    // Whether the evidence shows it running function i itself: a tail call to it, or
    // its symbol executed. Equal totals, walk and helpers do not: a copy of i's code
    // that gcc inlined has all of them too.
    const auto shown_running = [&](std::size_t i) {
        return (e.graded_jumps_to && *e.graded_jumps_to == fn_name(e, i)) || executed(i);
    };
    const auto running = [&](std::size_t i) {
        return shown_running(i) ? fn_name(e, i) : fmt::format("code that matches {}'s", fn_name(e, i));
    };
    if (alike) {
        ev.emplace_back("behaves like", fn_name(e, *alike));
        if (!e.graded_jumps_to) runs = running(*alike);
    }
    ev.emplace_back("graded mean speedup over --dims", g.complete() ? g.mean_speedup : 0.0);

    if (!g.correct) {
        Finding f = make("graded-function", Severity::problem, e.kernel, g.name, fn + " fails the correctness check");
        f.evidence = ev;
        f.evidence.emplace_back("error", g.failure ? g.failure->summary() : "");
        std::optional<std::size_t> passing;
        for (std::size_t i = 0; i < e.result.variants.size(); ++i)
            if (i != *gi && e.result.variants[i].complete() && !is_naive_function(e, i) &&
                (!passing || e.result.variants[i].mean_speedup > e.result.variants[*passing].mean_speedup))
                passing = i;
        f.meaning = "the grader times " + fn + " only; a wrong result scores nothing, whatever the other variants do.";
        f.advice = passing ? fmt::format("fix {} (see failing-dims for where it fails), or make {} call {}, which passes.",
                                         runs, fn, fn_name(e, *passing))
                           : fmt::format("no variant of yours that is not a naive one passes: fix {} first; failing-dims "
                                         "says at which dimensions it fails and passes.",
                                         runs);
        out.push_back(std::move(f));
        return alike;
    }
    // rotate()/smooth() runs a naive function (a tail call, or the same simulated
    // code) while another registered variant does measurably less: the figures are
    // deterministic, so this needs no timing.
    {
        std::optional<std::size_t> naive_run;
        for (std::size_t i = 0; i < e.result.variants.size(); ++i) {
            if (i == *gi || !is_naive_function(e, i)) continue;
            if ((same_code(e.figures[*gi], e.figures[i]) && walks_alike(i)) ||
                (e.graded_jumps_to && *e.graded_jumps_to == fn_name(e, i)))
                naive_run = i;
        }
        std::optional<std::size_t> better;
        for (std::size_t i = 0; naive_run && i < e.result.variants.size(); ++i) {
            if (i == *gi || is_naive_function(e, i) || !e.result.variants[i].correct) continue;
            const auto& m = e.figures[i];
            const auto& g2 = e.figures[*gi];
            if (m.d1() && g2.d1() && *m.d1() < 0.5 * *g2.d1() && (!better || *m.d1() < *e.figures[*better].d1()))
                better = i;
        }
        if (naive_run && better) {
            // By name, the function the call jumped to or executed when that is not
            // the naive one but a copy of its code: "runs naive_rotate" would be untrue.
            // Where neither is shown, only that the code matches naive's.
            const bool copy_ran =
                alike && *alike != *naive_run && !is_naive_function(e, *alike) && shown_running(*alike);
            const std::string runs_what =
                copy_ran ? fmt::format("{}, which does what {} does,", fn_name(e, *alike), fn_name(e, *naive_run))
                         : running(*naive_run) + ",";
            Finding f = make("graded-function", Severity::problem, e.kernel, g.name,
                             fmt::format("{} runs {} while {} is registered and misses far less", fn, runs_what,
                                         fn_name(e, *better)));
            f.evidence = ev;
            if (copy_ran || shown_running(*naive_run))
                f.evidence.emplace_back("runs", fn_name(e, copy_ran ? *alike : *naive_run));
            if (copy_ran || !shown_running(*naive_run)) f.evidence.emplace_back("same code as", fn_name(e, *naive_run));
            f.evidence.emplace_back("D1 misses/px", e.figures[*gi].d1().value_or(0));
            f.evidence.emplace_back("better variant", e.result.variants[*better].name);
            f.evidence.emplace_back("better D1 misses/px", e.figures[*better].d1().value_or(0));
            f.meaning = fn + " is what the grader times: it scores the naive code, not your work.";
            f.advice = fmt::format("make {} call {} (or move its body into {}).", fn, fn_name(e, *better), fn);
            out.push_back(std::move(f));
            return alike;
        }
    }
    // The fastest other registered variant, among those the grader could be pointed
    // at; an unregistered one is unregistered-candidate's to compare, said once.
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i)
        if (i != *gi && e.registered(i) && e.result.variants[i].complete() && !is_naive_function(e, i) &&
            (!best || speedup_at(e, e.result.variants[i]) > speedup_at(e, e.result.variants[*best])))
            best = i;
    const bool runs_best = best && (alike == best || (e.graded_jumps_to && *e.graded_jumps_to == fn_name(e, *best)));
    if (best && !runs_best && speedup_at(e, e.result.variants[*best]) > speedup_at(e, g)) {
        const auto& b = e.result.variants[*best];
        const Gap c = speedup_gap(e, b, g);
        if (c.resolved) {
            Finding f = make("graded-function", Severity::problem, e.kernel, g.name,
                             fmt::format("the grader times {}, but {} is faster at {}", fn, fn_name(e, *best), dim));
            f.evidence = ev;
            f.evidence.emplace_back("faster variant", b.name);
            f.evidence.emplace_back("faster speedup", speedup_at(e, b));
            f.evidence.emplace_back(fn + " speedup", speedup_at(e, g));
            add_noise(f.evidence, c, e, b, g);
            f.meaning = fmt::format("{} runs {}; the score comes from it, not from the fastest of your functions, and the "
                                    "difference is larger than this run's noise.",
                                    fn, runs);
            f.advice = fmt::format("make {} call {} (or move its body into {}).", fn, fn_name(e, *best), fn);
            out.push_back(std::move(f));
            return alike;
        }
        Finding f = make("within-noise", Severity::info, e.kernel, g.name,
                         fmt::format("{} ({:.2f}) and {} ({:.2f}) differ by less than this run's noise at {}", fn,
                                     speedup_at(e, g), fn_name(e, *best), speedup_at(e, b), dim));
        f.evidence = ev;
        f.evidence.emplace_back("other variant", b.name);
        f.evidence.emplace_back("other speedup", speedup_at(e, b));
        f.evidence.emplace_back(fn + " speedup", speedup_at(e, g));
        f.evidence.emplace_back("oracle CPE spread in this run", e.noise.spread);
        f.evidence.emplace_back("oracle CPEs compared", double(e.noise.samples));
        add_noise(f.evidence, c, e, b, g);
        f.meaning = c.overlap ? "each speedup's 95% interval, from its rounds beside the oracle, reaches into the "
                                "other's: the gap could be the machine, not the code. Nothing says which of the two is "
                                "faster."
                              : "the same oracle, timed in turns with each function of this run, varied by this much: "
                                "a gap inside that band could be the machine, not the code. Nothing says which of the "
                                "two is faster.";
        f.advice = "measure again before changing which function rotate()/smooth() calls: ./driver --explain "
                   "--max-samples 50 on a quiet machine, or several runs of ./driver -v.";
        out.push_back(std::move(f));
    }
    Finding f = make("graded-function", Severity::info, e.kernel, g.name, fmt::format("{} runs {}", fn, runs));
    f.evidence = ev;
    f.meaning = fn + " is what the grader times, and no other registered variant is measurably faster.";
    out.push_back(std::move(f));
    return alike;
}

// Returns the variants it called out, whose other findings would repeat it.
std::vector<std::size_t> equals_naive(const KernelEvidence& e, const std::vector<std::size_t>& skip,
                                      std::vector<Finding>& out) {
    std::vector<std::size_t> same;
    for (std::size_t i = 0; i < e.result.variants.size(); ++i) {
        const auto& v = e.result.variants[i];
        if (!v.correct || named_naive(v) || std::count(skip.begin(), skip.end(), i)) continue;
        const auto ratio = time_ratio(v, nullptr, e.dim);
        // With simulated figures and traces the decision is the code's, not the
        // clock's: equal instructions, misses and order. Timing only without them.
        const CacheFigures& a = e.figures[i];
        const CacheFigures& b = e.naive.figures;
        const bool have_code = a.instructions && b.instructions && a.d1() && b.d1() && i < e.patterns.size() &&
                               e.patterns[i] && e.naive.pattern;
        if (have_code ? !same_code(a, b)
                      : !behaves_alike(a, b, ratio))
            continue;
        const auto& mine = pattern_of(e, i);
        const auto& theirs = e.naive.pattern;
        if (!same_walk(mine, theirs)) continue;
        same.push_back(i);
        Finding f = make("variant-equals-naive", Severity::problem, e.kernel, v.name,
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

// ---- 3. build-flags ----

void build_flags(const BuildInfo& b, std::vector<Finding>& out) {
    std::istringstream in(b.kcflags);
    std::string flag, level = "-O0 (no -O flag)";
    std::vector<std::string> debug;
    while (in >> flag) {
        if (flag.rfind("-O", 0) == 0) level = flag == "-O" ? "-O1" : flag;
        if (flag.rfind("-fsanitize", 0) == 0 || flag == "-pg" || flag == "--coverage" || flag == "-fno-inline")
            debug.push_back(flag);
    }
    Severity s = Severity::ok;
    std::string title = "compiled with " + level, meaning, advice;
    if (level.rfind("-O0", 0) == 0) {
        s = Severity::problem;
        title = "kernels.c was compiled without optimisation (" + level + ")";
        meaning = "at -O0 every variable lives in memory and every RIDX is recomputed: each variant does several times "
                  "the work the graded -O2 build does, and the speedups compare unoptimised code.";
        advice = "build with the handout's flags: make clean && make (KCFLAGS=\"-O2 -Wall -g\").";
    } else if (level == "-Og" || level == "-O1" || !debug.empty()) {
        s = Severity::warning;
        title = "kernels.c was compiled as a debug build (" + level + (debug.empty() ? "" : " " + debug[0]) + ")";
        meaning = "the grader builds with -O2; figures from this build do not carry over.";
        advice = "build with the handout's flags: make clean && make (KCFLAGS=\"-O2 -Wall -g\").";
    }
    Finding f = make("build-flags", s, {}, {}, title);
    f.evidence = {{"KCFLAGS", b.kcflags}, {"optimisation", level}};
    f.meaning = meaning;
    f.advice = advice;
    out.push_back(std::move(f));
}

// ---- 4. memory-misses, 5. work-per-pixel ----

// The L1d the trace's findings reason with: the one --cache-geometry gave, which
// the traces simulated, else this machine's.
const std::optional<L1Geometry>& traced_l1(const ExplainData& data) { return data.given_l1 ? data.given_l1 : data.l1; }

// The line bytes of that L1d (64 where none is known), and where they come from.
int traced_line(const ExplainData& data) { return traced_l1(data) ? traced_l1(data)->line : 64; }

void add_line(Evidence& ev, const ExplainData& data) {
    ev.emplace_back("line bytes", double(traced_line(data)));
    ev.emplace_back("line from", traced_l1(data) ? traced_l1(data)->source : "assumed: no L1d size known");
}

// The L1d of the miss figures: the given one when they were simulated with
// --cache-geometry, else this machine's (the PMU's, or simulating it).
const std::optional<L1Geometry>& figures_l1(const ExplainData& data) {
    return data.geometry_given ? traced_l1(data) : data.l1;
}

double streaming_misses(const std::optional<L1Geometry>& l1) {
    // Each pixel read once and written once, 6 bytes each, whole lines used.
    return 2.0 * double(sizeof(pixel)) / double(l1 ? l1->line : 64);
}

// The D1 misses per pixel a variant can get down to: the reference kernel's, or
// in the handout (no reference) one miss per line streamed.
double achievable_misses(const ExplainData& data, const KernelEvidence& e) {
    return e.reference && e.reference->figures.d1() ? *e.reference->figures.d1() : streaming_misses(figures_l1(data));
}

// "Close" and "the same" are said only when the figures are: within 20% of the
// reference (or of streaming).
bool misses_achieved(double mine, double achievable) {
    return mine <= std::max(1.2 * achievable, achievable + 0.01);
}

// Whether variant i's misses are known and as few as memory-misses accepts.
bool misses_comparable(const ExplainData& data, const KernelEvidence& e, std::size_t i) {
    const auto mine = e.figures[i].d1();
    return mine && e.naive.figures.d1() && misses_achieved(*mine, achievable_misses(data, e));
}

void memory_misses(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    const auto& v = e.result.variants[i];
    const CacheFigures& f = e.figures[i];
    if (!f.d1() || !e.naive.figures.d1()) return;
    const double mine = *f.d1(), naive = *e.naive.figures.d1();
    const bool have_ref = e.reference && e.reference->figures.d1();
    const double achievable = achievable_misses(data, e);
    Finding out_f = make("memory-misses", Severity::ok, e.kernel, v.name, "");
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
    Finding f = make("work-per-pixel", Severity::ok, e.kernel, v.name, "");
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
        f.meaning = "the loop spends instructions on index arithmetic (RIDX multiplies) rather than on moving pixels.";
        f.advice = "step pointers by 1 and by dim instead of recomputing RIDX in the inner loop.";
    }
    out.push_back(std::move(f));
}

// ---- 6. tile-advice ----

void tile_advice(const ExplainData& data, const KernelEvidence& e, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate) return;
    Finding f = make("tile-advice", Severity::info, e.kernel, {}, "");
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
    out.push_back(std::move(f));
}


// ---- access-order, tile-shape: how the loops walk memory, next to the reference ----

void add_pattern(Evidence& ev, const std::string& who, const AccessPattern& p) {
    const std::string pre = who.empty() ? "" : who + " ";
    ev.emplace_back(pre + "inner store step", describe_step(p.store.step, p.dim));
    ev.emplace_back(pre + "inner load step", describe_step(p.load.step, p.dim));
    ev.emplace_back(pre + "tile (dst rows x cols)",
                    p.tiled() ? fmt::format("{}x{}", p.tile.rows, p.tile.cols) : std::string("untiled"));
    ev.emplace_back(pre + "fetches per source line", p.src_fetches_per_line);
    ev.emplace_back(pre + "fetches per destination line", p.dst_fetches_per_line);
}

// A line fetched this many times more than the reference's is a real difference:
// the trace and the simulated L1 are deterministic.
constexpr double kMoreFetches = 1.5;

void access_order(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (e.kernel != Kernel::rotate || i >= e.patterns.size() || !e.patterns[i]) return;
    const AccessPattern& p = *e.patterns[i];
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    Finding f = make("access-order", Severity::ok, e.kernel, e.result.variants[i].name, "");
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
    Finding f = make("tile-shape", Severity::ok, e.kernel, e.result.variants[i].name, "");
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

// ---- at-ceiling: what the references reach in this run ----

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
    const Timed top{tile_on_top ? fmt::format("reference tile {}", best_edge) : e.reference->name, ceiling, &point,
                    tile_on_top ? best_tile_point->converged : e.reference->converged};
    const Gap c = speedup_gap(e, graded, top);
    // The evidence's "reference speedup" is the reference kernel's: a ceiling set by
    // a swept tile is named as that tile, not as "the reference".
    const std::string ceiling_by =
        tile_on_top ? fmt::format("the reference blocked rotate with B = {}", best_edge) : "the reference";
    Finding f = make("at-ceiling", Severity::info, e.kernel, g.name, "");
    f.evidence = {{"graded speedup", graded.speedup},
                  {"reference speedup", ref},
                  {"reference", e.reference->name}};
    if (best_edge) {
        f.evidence.emplace_back("best swept reference tile", double(best_edge));
        f.evidence.emplace_back("best swept reference speedup", best_tile);
    }
    add_noise(f.evidence, c, e.dim, graded, top);
    const std::string fn = fmt::format("{}()", kernel_name(e.kernel));
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
        f.meaning = "the gap to the reference is larger than this run's noise: something in the code, not the machine, "
                    "holds it back (see the problems above).";
    }
    out.push_back(std::move(f));
}

// "avg 1.00/px, mn 2.00/px": the callees called at least `at_least` times a pixel.
std::string callee_list(const AccessPattern& p, double at_least) {
    std::vector<std::string> list;
    for (const auto& [callee, n] : p.callees)
        if (n >= at_least) list.push_back(fmt::format("{} {:.2f}/px", callee, n));
    return fmt::format("{}", fmt::join(list, ", "));
}

// ---- edited-baseline, unregistered-candidate ----

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
        Finding fd = make("edited-baseline", Severity::warning, e.kernel, e.result.variants[i].name,
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

void unregistered(const KernelEvidence& e, std::optional<std::string> why_uncalled, std::vector<Finding>& out) {
    const std::string fn = fmt::format("{}()", kernel_name(e.kernel));
    const auto gi = graded_index(e.result);
    for (const auto& u : e.unregistered) {
        std::string title = fmt::format("{} is in the binary but neither registered nor run by {}", u.name, fn);
        Evidence ev{{"function", u.name}};
        std::string meaning = "the driver checks and times only registered functions and the grader only "
                              "rotate()/smooth(): whatever this function does is not measured by them.";
        std::string advice = fmt::format("register it (add_{}_function(&{}, \"{}: ...\")) to have it checked and timed.",
                                         kernel_name(e.kernel), u.name, u.name);
        if (!u.variant) {
            ev.emplace_back("not called", why_uncalled.value_or("its parameters are unknown"));
        } else if (const VariantResult& v = e.result.variants[*u.variant]; !v.correct) {
            title += ": it fails the check";
            ev.emplace_back("error", v.failure ? v.failure->summary() : "");
            meaning = "explain called it with a kernel's arguments (its debug information declares them): it does not "
                      "compute what the oracle does.";
            advice = fmt::format("fix {} before registering it; failing-dims says where it fails.", u.name);
        } else if (v.complete() && gi && e.result.variants[*gi].complete()) {
            const VariantResult& g = e.result.variants[*gi];
            const Gap c = speedup_gap(e, v, g);
            const double mine = speedup_at(e, v), graded = speedup_at(e, g);
            ev.emplace_back("speedup", mine);
            ev.emplace_back(fn + " speedup", graded);
            add_noise(ev, c, e, v, g);
            if (c.resolved && mine > graded) {
                title += fmt::format(", and it is faster at {} ({:.2f} against {:.2f})", e.dim, mine, graded);
                advice = fmt::format("register {} and make {} call it.", u.name, fn);
            } else {
                title += fmt::format(": it passes the check ({:.2f}; {} {:.2f} at {}{})", mine, fn, graded, e.dim,
                                     c.resolved ? "" : ", within noise");
            }
        }
        Finding f = make("unregistered-candidate", Severity::warning, e.kernel, {}, title);
        f.evidence = std::move(ev);
        f.meaning = std::move(meaning);
        f.advice = std::move(advice);
        out.push_back(std::move(f));
    }
}

// ---- per-call-allocation: from the trace's allocator calls and the faults counted ----

// Fresh pages per call: 8 is 32 KiB of memory the kernel maps anew each call, far
// above what a kernel that reuses its memory takes (none after its first call).
constexpr double kFaultsPerCall = 8;

void allocation_facts(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    const double allocations =
        i < e.patterns.size() && e.patterns[i] ? e.patterns[i]->allocations_per_call : 0;
    const std::optional<double> faults = i < e.faults_per_call.size() ? e.faults_per_call[i] : std::nullopt;
    const double oracle_faults = e.naive.faults_per_call.value_or(0);
    const bool faulting = faults && *faults >= kFaultsPerCall + oracle_faults;
    if (allocations < 1 && !faulting) return;
    const std::string name = fn_name(e, i);
    std::string title = allocations >= 1 ? fmt::format("{} allocates memory {:.0f} times per call", name, allocations)
                                         : fmt::format("{} maps fresh memory on every call", name);
    if (faults) title += fmt::format(" and takes {:.0f} page faults per call", *faults);
    Finding f = make("per-call-allocation", faulting ? Severity::problem : Severity::warning, e.kernel,
                     e.result.variants[i].name, title);
    if (allocations >= 1) f.evidence.emplace_back("allocations per call", allocations);
    if (faults) {
        f.evidence.emplace_back("page faults per call", *faults);
        if (e.naive.faults_per_call) f.evidence.emplace_back("the oracle's page faults per call", *e.naive.faults_per_call);
    }
    if (faulting)
        f.meaning = "each call gets memory the kernel has never mapped (a large allocation is returned to the system "
                    "when freed): every page of it faults on first touch, inside the timed call.";
    else if (faults)
        f.meaning = "the allocator hands back the same memory each call (no page faults beyond the oracle's): the "
                    "cost is the allocator calls and whatever the kernel copies into the buffer.";
    else
        f.meaning = "an allocation inside the kernel is timed with it; whether its pages fault each call was not "
                    "counted here.";
    f.advice = "work in place or in a static buffer, allocated once.";
    out.push_back(std::move(f));
}

// ---- code facts from the trace: divisions, calls, threads ----

void code_facts(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (i >= e.patterns.size() || !e.patterns[i]) return;
    const AccessPattern& p = *e.patterns[i];
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    const std::string& variant = e.result.variants[i].name;
    if (p.divisions_per_px >= 0.5) {
        Finding f = make("variable-divisor", Severity::problem, e.kernel, variant,
                         fmt::format("{} executes {:.1f} divide instructions per pixel", name, p.divisions_per_px));
        f.evidence = {{"divisions/px", p.divisions_per_px}, {"traced at", double(p.dim)}};
        if (ref) f.evidence.emplace_back("reference divisions/px", ref->divisions_per_px);
        f.meaning = "a division by a constant compiles to a multiply; these are divisions by a value the compiler "
                    "cannot know (a neighbour count, dim): tens of cycles each, per pixel.";
        f.advice = "divide the interior by the literal 9 (corners by 4, edges by 6), so each becomes a multiply.";
        out.push_back(std::move(f));
    }
    if (p.calls_per_px >= 0.5) {
        Finding f = make("calls-per-pixel", Severity::problem, e.kernel, variant,
                         fmt::format("{} makes {:.1f} calls per pixel", name, p.calls_per_px));
        f.evidence = {{"calls/px", p.calls_per_px}, {"callees", callee_list(p, 0.1)}, {"traced at", double(p.dim)}};
        if (ref) f.evidence.emplace_back("reference calls/px", ref->calls_per_px);
        f.meaning = "each call saves and restores registers and stops the compiler from keeping sums in registers or "
                    "vectorising across pixels.";
        f.advice = "inline the work into the loop (static inline helpers, or the body itself).";
        out.push_back(std::move(f));
    }
    if (p.threads_per_call >= 1) {
        Finding f = make("threads", Severity::problem, e.kernel, variant,
                         fmt::format("{} creates {:.0f} threads per call", name, p.threads_per_call));
        f.evidence = {{"threads created per call", p.threads_per_call}};
        f.meaning = "the driver pins the kernel to one CPU and charges all its CPU time: threads take turns on that "
                    "CPU, and each costs its creation.";
        f.advice = "remove the threads; make the single-threaded loop cheaper.";
        out.push_back(std::move(f));
    }
}

// ---- failing-dims ----

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

void failing_dims(const KernelEvidence& e, std::vector<Finding>& out) {
    const std::string fn = fmt::format("{}()", kernel_name(e.kernel));
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
        Finding f = make("failing-dims", Severity::problem, e.kernel, e.result.variants[i].name,
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

// ---- 7. measurement-quality ----

void measurement_quality(const ExplainData& data, std::vector<Finding>& out) {
    auto add = [&](Severity s, std::string title, Evidence ev, std::string meaning, std::string advice) {
        Finding f = make("measurement-quality", s, {}, {}, std::move(title));
        f.evidence = std::move(ev);
        f.meaning = std::move(meaning);
        f.advice = std::move(advice);
        out.push_back(std::move(f));
    };
    const std::size_t before = out.size();
    std::vector<std::string> unconverged;
    int rows = 0;
    for (const auto& e : data.kernels)
        for (const auto& v : e.result.variants)
            for (const auto& d : v.dims) {
                ++rows;
                if (!d.converged)
                    unconverged.push_back(fmt::format("{} at {}{}", short_name(v.name), d.dim,
                                                      !d.call_cost_resolved           ? " (within the call's noise)"
                                                      : !d.speedup_call_cost_resolved ? " (speedup within the call's noise)"
                                                                                      : ""));
            }
    if (!unconverged.empty()) {
        add(Severity::warning, fmt::format("{} of {} timings did not converge", unconverged.size(), rows),
            {{"not converged", fmt::format("{}", fmt::join(unconverged, ", "))}, {"K", double(data.kbest.k)}, {"epsilon", data.kbest.epsilon},
             {"ratio tolerance", data.kbest.ratio_tolerance}, {"max samples", double(data.kbest.max_samples)}},
            "a speedup timed beside the oracle kept a 95% interval wider than the ratio tolerance (the JSON's "
            "speedup_interval says how wide), or the K fastest samples of a CPE timed alone never agreed within "
            "epsilon, or (within the call's noise) the kernel's fastest call was not clearly slower than an empty "
            "call, so the call's cost stayed in that figure, which understates the kernel (a speedup within it "
            "pairs whole calls; its CPE, from the fastest calls, has the cost taken out): those figures are less "
            "sure than the others.",
            "rerun when the machine is quieter, or raise --max-samples (larger --dims for a figure within the "
            "call's noise).");
    }
    for (const auto& e : data.kernels) {
        std::vector<std::string> others;
        if (!e.naive.converged) others.push_back("the naive oracle");
        if (e.reference && !e.reference->converged) others.push_back(e.reference->name);
        for (const auto& t : e.tile_sweep)
            if (!t.converged) others.push_back(fmt::format("reference tile {}", t.tile));
        const bool noisy = e.noise.spread > 0.10;
        if (!noisy && others.empty()) continue;
        const std::string list = fmt::format("{}", fmt::join(others, ", "));
        Evidence ev{{"kernel", std::string(kernel_name(e.kernel))}};
        // One oracle CPE has no spread to speak of: the band is then assumed, not measured.
        if (e.noise.samples >= 2) ev.emplace_back("oracle CPE spread in this run", e.noise.spread);
        ev.emplace_back("oracle CPEs compared", double(e.noise.samples));
        ev.emplace_back("noise band used (+/-)", e.noise.tolerance);
        if (!list.empty()) ev.emplace_back("driver's own timings not converged", list);
        add(Severity::warning,
            noisy ? fmt::format("{}: the same oracle varied by {:.0f}% within this run", kernel_name(e.kernel),
                                100 * e.noise.spread)
                  : fmt::format("{}: {} did not converge in this run", kernel_name(e.kernel), list),
            std::move(ev),
            fmt::format("differences between speedups smaller than {:.0f}% are not resolved in this run; findings that "
                        "compare timings say so (within-noise) instead of advising.",
                        100 * e.noise.tolerance),
            "rerun on a quiet machine with a larger --max-samples before acting on a timing difference.");
    }
    const auto& fq = data.system.frequency;
    if (!fq.cpufreq_present) {
        add(Severity::info, "no CPU frequency control visible (a VM)",
            {{"cpufreq", "absent: /sys/devices/system/cpu/cpufreq has no governor, boost or no_turbo"}},
            "the host sets the clock and its turbo; the TSC counts at a fixed rate, so a CPE in TSC ticks moves when the "
            "host changes the core's frequency, unseen from here.",
            "compare variants within one run, and repeat a run before trusting a small difference.");
    } else {
        if (!fq.governor.empty() && fq.governor != "performance")
            add(Severity::warning, "CPU frequency scaling governor is " + fq.governor, {{"governor", fq.governor}},
                "the core may run slower at the start of each measurement, inflating the first samples.",
                "set the performance governor (cpupower frequency-set -g performance) where you may.");
        if (fq.boost.value_or(false) || (fq.pstate_no_turbo && !*fq.pstate_no_turbo))
            add(Severity::warning, "turbo boost is enabled",
                {{"boost", fq.boost ? (*fq.boost ? "on" : "off") : "unknown"},
                 {"intel_pstate no_turbo", fq.pstate_no_turbo ? (*fq.pstate_no_turbo ? "1" : "0") : "absent"}},
                "the clock depends on temperature and on the other cores' load: timings drift between runs.",
                "disable turbo for timing runs where you may (echo 0 > /sys/devices/system/cpu/cpufreq/boost).");
    }
    if (data.system.load) {
        const auto& l = *data.system.load;
        const bool busy = l.busy_fraction > kBusyCpu;
        const bool loaded = l.loadavg1 && l.logical_cpus > 0 && *l.loadavg1 >= double(l.logical_cpus);
        if (busy || loaded) {
            Evidence ev{{"CPU", double(l.cpu)}, {"busy fraction", l.busy_fraction}, {"window seconds", l.window_seconds}};
            if (l.loadavg1) ev.emplace_back("load average (1 min)", *l.loadavg1);
            ev.emplace_back("logical CPUs", double(l.logical_cpus));
            add(Severity::warning,
                busy ? fmt::format("another process kept CPU {} {:.0f}% busy", l.cpu, 100 * l.busy_fraction)
                     : fmt::format("load average {:.1f} on {} CPUs", *l.loadavg1, l.logical_cpus),
                std::move(ev),
                "the timed calls share the CPU: some samples are interrupted, fewer converge, and the slow ones make "
                "every variant look alike.",
                "rerun when the machine is quiet, or choose a quieter CPU with --cpu.");
        }
    }
    if (data.pinned_cpu < 0)
        add(Severity::warning, "the driver could not pin itself to one CPU", {{"reason", data.pin_error}},
            "a sample that migrates between CPUs mid-call measures the migration.", "pick an allowed CPU with --cpu.");
    if (data.counters_unavailable)
        add(Severity::info, "no hardware counters on this machine", {{"reason", *data.counters_unavailable}},
            data.figures_unavailable
                ? "there are no miss or instruction figures."
                : fmt::format("the miss and instruction figures come from cachegrind simulating {}: exact and "
                              "repeatable, but with no hardware prefetcher, so real misses of streaming code are "
                              "fewer.",
                              data.geometry_given ? "the caches --cache-geometry gave, not this machine's"
                                                  : "this machine's caches"),
            "for measured counters run on a host with a PMU (see docs/counters.md).");
    if (data.figures_unavailable)
        add(Severity::warning, "no miss or instruction figures", {{"reason", *data.figures_unavailable}},
            "memory-misses and work-per-pixel could not be checked.",
            "install valgrind (apt-get install valgrind) or run where the PMU is available.");
    if (out.size() == before)
        add(Severity::ok, "timings converged on a quiet, pinned CPU", {{"CPU", double(data.pinned_cpu)}}, "", "");
}

}  // namespace

std::vector<Finding> explain_checks(const ExplainData& data) {
    std::vector<Finding> out;
    stale_build(data.build, out);
    // Variants whose findings would repeat another's: those found to be naive, and
    // an unregistered rotate()/smooth() that runs a registered variant.
    std::vector<std::vector<std::size_t>> repeats;
    for (const auto& e : data.kernels) {
        std::vector<std::size_t> skip;
        if (graded_function(e, out) && !e.graded_registered) skip.push_back(*graded_index(e.result));
        auto naive = equals_naive(e, skip, out);
        skip.insert(skip.end(), naive.begin(), naive.end());
        repeats.push_back(std::move(skip));
    }
    build_flags(data.build.build, out);
    // Naive versions are meant to be slow, and repeats have been said once already:
    // the per-variant checks look at the others.
    auto examined = [&](auto check) {
        for (std::size_t k = 0; k < data.kernels.size(); ++k)
            for (std::size_t i = 0; i < data.kernels[k].result.variants.size(); ++i) {
                const auto& v = data.kernels[k].result.variants[i];
                if (v.correct && !named_naive(v) && !std::count(repeats[k].begin(), repeats[k].end(), i))
                    check(data.kernels[k], i);
            }
    };
    examined([&](const KernelEvidence& e, std::size_t i) { memory_misses(data, e, i, out); });
    examined([&](const KernelEvidence& e, std::size_t i) { work_per_pixel(e, i, out); });
    examined([&](const KernelEvidence& e, std::size_t i) { access_order(data, e, i, out); });
    examined([&](const KernelEvidence& e, std::size_t i) { tile_shape(data, e, i, out); });
    // Code facts are not repeats of a naive finding: a naive loop run in threads is
    // still worth saying. Naive-named functions are the student's baseline.
    for (const auto& e : data.kernels)
        for (std::size_t i = 0; i < e.result.variants.size(); ++i)
            if (e.result.variants[i].correct && !is_naive_function(e, i)) {
                code_facts(e, i, out);
                allocation_facts(e, i, out);
            }
    for (const auto& e : data.kernels) {
        failing_dims(e, out);
        edited_baseline(e, out);
        unregistered(e, data.unregistered_uncalled, out);
        tile_advice(data, e, out);
        at_ceiling(e, out);
    }
    measurement_quality(data, out);
    return out;
}

}  // namespace perflab
