// --explain's judgements, in the order a TA checks things: is the binary the
// student's latest code, what does the grader time, how was it compiled, how does
// each variant use the cache and how much work does it do per pixel, what tile
// would fit, and can the figures be trusted. Pure functions of ExplainData.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
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

// The same machine code, as far as the evidence can tell: equal instruction and
// miss counts (when there are figures) and timings within noise.
bool behaves_alike(const CacheFigures& a, const CacheFigures& b, std::optional<double> ratio) {
    if (!ratio || *ratio > kSameTiming || *ratio < 1 / kSameTiming) return false;
    if (a.instructions && b.instructions && a.d1() && b.d1())
        return close(*a.instructions, *b.instructions, kSameInstructions) && close(*a.d1(), *b.d1(), kSameMisses);
    return close(*ratio, 1.0, 0.05);  // timing alone: demand more
}

bool named_naive(const VariantResult& v) { return lower(short_name(v.name)).find("naive") != std::string::npos; }

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
    std::optional<std::size_t> alike;
    for (std::size_t i = 0; i < e.result.variants.size() && !alike; ++i) {
        const auto& v = e.result.variants[i];
        if (i != *gi && v.correct && behaves_alike(e.figures[*gi], e.figures[i], time_ratio(g, &v, dim))) alike = i;
    }
    if (alike) {
        ev.emplace_back("behaves like", short_name(e.result.variants[*alike].name));
        if (!e.graded_jumps_to) runs = short_name(e.result.variants[*alike].name);
    }
    ev.emplace_back("graded speedup", g.complete() ? g.mean_speedup : 0.0);

    if (!g.correct) {
        Finding f = make("graded-function", Severity::problem, e.kernel, g.name, fn + " fails the correctness check");
        f.evidence = ev;
        f.evidence.emplace_back("error", g.failure ? g.failure->summary() : "");
        f.meaning = "the grader times " + fn + " only; a wrong result scores nothing, whatever the other variants do.";
        f.advice = "make " + fn + " call a variant that passes the check.";
        out.push_back(std::move(f));
        return alike;
    }
    const auto best = e.result.best;
    const bool runs_best = best && (alike == best || (e.graded_jumps_to &&
                                                      *e.graded_jumps_to == short_name(e.result.variants[*best].name)));
    if (best && *best != *gi && !runs_best && e.result.variants[*best].mean_speedup > g.mean_speedup * kFasterMargin) {
        const auto& b = e.result.variants[*best];
        Finding f = make("graded-function", Severity::problem, e.kernel, g.name,
                         fmt::format("the grader times {}, but your fastest variant is {}", fn, short_name(b.name)));
        f.evidence = ev;
        f.evidence.emplace_back("fastest variant", b.name);
        f.evidence.emplace_back("fastest speedup", b.mean_speedup);
        f.meaning = fmt::format("{} runs {}; the score comes from it, not from the best registered variant.", fn, runs);
        f.advice = fmt::format("make {} call {} (or move its body into {}).", fn, short_name(b.name), fn);
        out.push_back(std::move(f));
        return alike;
    }
    Finding f = make("graded-function", Severity::info, e.kernel, g.name, fmt::format("{} runs {}", fn, runs));
    f.evidence = ev;
    f.meaning = fn + " is what the grader times, and no registered variant beats it.";
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
        if (!behaves_alike(e.figures[i], e.naive.figures, ratio)) continue;
        same.push_back(i);
        Finding f = make("variant-equals-naive", Severity::problem, e.kernel, v.name,
                         fmt::format("{} is the naive {} under another name", short_name(v.name), kernel_name(e.kernel)));
        f.evidence.emplace_back("dim", double(e.dim));
        f.evidence.emplace_back("CPE", at_dim(v, e.dim)->cpe);
        f.evidence.emplace_back("speedup over naive", *ratio);
        add_figures(f.evidence, "", e.figures[i]);
        add_figures(f.evidence, "naive", e.naive.figures);
        f.meaning = "its output is correct, so it equals naive's, and it executes as many instructions with as many "
                    "cache misses as the naive version, at the same speed: whatever was changed, the compiled loop "
                    "is naive's (or it calls naive).";
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

double streaming_misses(const std::optional<L1Geometry>& l1) {
    // Each pixel read once and written once, 6 bytes each, whole lines used.
    return 2.0 * double(sizeof(pixel)) / double(l1 ? l1->line : 64);
}

void memory_misses(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    const auto& v = e.result.variants[i];
    const CacheFigures& f = e.figures[i];
    if (!f.d1() || !e.naive.figures.d1()) return;
    const double mine = *f.d1(), naive = *e.naive.figures.d1();
    const bool have_ref = e.reference && e.reference->figures.d1();
    const double achievable = have_ref ? *e.reference->figures.d1() : streaming_misses(data.l1);
    Finding out_f = make("memory-misses", Severity::ok, e.kernel, v.name, "");
    add_figures(out_f.evidence, "", f);
    add_figures(out_f.evidence, "naive", e.naive.figures);
    if (have_ref) add_figures(out_f.evidence, "reference", e.reference->figures);
    out_f.evidence.emplace_back("figures from", data.figures_source);
    const std::string name = short_name(v.name);
    const bool writes = f.d1_write && f.d1_read && *f.d1_write > *f.d1_read;
    const std::string kind = f.d1_write ? (writes ? "write" : "read") : "load";
    const double dominant = f.d1_write ? (writes ? *f.d1_write : *f.d1_read) : mine;

    if (mine <= std::max(1.5 * achievable, achievable + 0.05)) {
        out_f.title = fmt::format("{}: {:.2f} D1 misses per pixel, close to {}", name, mine,
                                  have_ref ? "the reference kernel's" : "one miss per line streamed");
        out.push_back(std::move(out_f));
        return;
    }
    const bool as_naive = mine >= 0.9 * naive;
    out_f.severity = as_naive ? Severity::problem : Severity::warning;
    out_f.title = as_naive ? fmt::format("{}: {:.2f} L1D {} misses per pixel, the same as naive", name, dominant, kind)
                           : fmt::format("{}: {:.2f} D1 misses per pixel, {:.1f}x {}", name, mine, mine / achievable,
                                         have_ref ? "the reference kernel's" : "what streaming needs");
    if (e.kernel == Kernel::rotate) {
        const std::string walked = writes ? "stores walk down a destination column" : "loads walk down a source column";
        out_f.meaning = fmt::format("the {}: each touches a new cache line, and by the time the next pixel of that "
                                    "line comes, L1 has evicted it. {}",
                                    walked,
                                    as_naive ? "Unrolling or pointer arithmetic does not change the order of the "
                                               "accesses, so the misses stay."
                                             : "The blocking helps, but the tiles do not fit in L1 with room to spare.");
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
    const std::string name = short_name(v.name);
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
    if (!data.l1) {
        f.title = "no L1d size known: no tile advice";
        f.meaning = "neither cacheprobe nor the OS/CPUID reported the first-level data cache.";
        // The handout (no reference kernels) ships no cacheprobe: the course machine's TA has it.
        f.advice = data.reference_kernels
                       ? "run make cacheprobe && ./cacheprobe --save, then ./driver --explain again."
                       : "ask for this machine's L1d size (perflab's ./cacheprobe measures it) and size your tiles from it.";
        out.push_back(std::move(f));
        return;
    }
    const TileFit fit = tile_fit(*data.l1);
    f.evidence = {{"L1d bytes", double(data.l1->bytes)},
                  {"line bytes", double(data.l1->line)},
                  {"L1d from", data.l1->source},
                  {"largest fitting edge", double(fit.largest)},
                  {"suggested edge", double(fit.suggested)},
                  {"suggested tile pair bytes", double(tile_pair_bytes(fit.suggested, data.l1->line))}};
    f.title = fmt::format("tile edges up to {} fit a source and a destination tile in the {} KiB L1d; try {}",
                          fit.largest, data.l1->bytes / 1024, fit.suggested);
    f.meaning = fmt::format("a BxB tile reads B source rows and writes B destination rows of 6B bytes; with a line of "
                            "{} bytes the pair takes 2*B*(ceil(6B/{})+1) lines. {} fills at most half of L1, leaving "
                            "ways free for the conflict misses of power-of-two row strides.",
                            data.l1->line, data.l1->line, fit.suggested);
    f.advice = fmt::format("block rotate with B = {} (anything from 8 to {} should beat naive), and keep the inner loop "
                           "over the destination row.",
                           fit.suggested, fit.largest);
    if (!data.reference_kernels) {
        f.evidence.emplace_back("tile sweep", "none: this build (the student handout) has no reference kernels");
    } else if (!e.tile_sweep.empty()) {
        auto best = std::min_element(e.tile_sweep.begin(), e.tile_sweep.end(),
                                     [](const TilePoint& a, const TilePoint& b) { return a.cpe < b.cpe; });
        for (const auto& p : e.tile_sweep) f.evidence.emplace_back(fmt::format("reference tile {} CPE", p.tile), p.cpe);
        f.evidence.emplace_back("best reference tile", double(best->tile));
        f.evidence.emplace_back("sweep dim", double(e.dim));
        f.advice += fmt::format(" Measured here at {}: the reference blocked rotate was fastest with B = {} ({:.2f} "
                                "CPE).",
                                e.dim, best->tile, best->cpe);
    }
    out.push_back(std::move(f));
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
                if (!d.converged) unconverged.push_back(fmt::format("{} at {}", short_name(v.name), d.dim));
            }
    if (!unconverged.empty()) {
        std::string list;
        for (const auto& u : unconverged) list += (list.empty() ? "" : ", ") + u;
        add(Severity::warning, fmt::format("{} of {} timings did not converge", unconverged.size(), rows),
            {{"not converged", list}, {"K", double(data.kbest.k)}, {"epsilon", data.kbest.epsilon},
             {"max samples", double(data.kbest.max_samples)}},
            "the K fastest samples never agreed within epsilon: those CPEs may be off by more than epsilon, so "
            "speedup differences of a few percent mean nothing.",
            "rerun when the machine is quieter, or raise --max-samples.");
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
                : "the miss and instruction figures come from cachegrind simulating this machine's caches: exact and "
                  "repeatable, but with no hardware prefetcher, so real misses of streaming code are fewer.",
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
    for (const auto& e : data.kernels) tile_advice(data, e, out);
    measurement_quality(data, out);
    return out;
}

}  // namespace perflab
