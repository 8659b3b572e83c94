// variable-divisor, calls-per-pixel, threads, per-call-allocation: facts of a
// function's code, from its trace and its page faults.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <regex>
#include <set>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

// Fresh pages per call: 8 is 32 KiB of memory the kernel maps anew each call, far
// above what a kernel that reuses its memory takes (none after its first call).
constexpr double kFaultsPerCall = 8;

struct WindowDivisions {
    double per_px = 0;
    std::vector<std::string> texts;  // "r / n", each once, where the source says
    std::vector<std::string> sites;  // "r / n (kernels.c:21)"
    std::vector<std::string> divisors;  // "n"
};

bool by_dim(const Division& d) {
    static const std::regex dim(R"(\bdim\b)");
    return std::regex_search(d.divisor, dim);
}

// The divisions a smooth's window needs: every divide instruction but those whose
// source line divides by dim alone (index arithmetic: i = k / dim).
WindowDivisions window_divisions(const AccessPattern& p) {
    WindowDivisions w;
    std::set<std::string> divisors;
    for (const DivideSite& site : p.divides) {
        const auto& parts = site.divisions;
        if (!parts.empty() && std::all_of(parts.begin(), parts.end(), by_dim)) continue;
        w.per_px += site.per_px;
        if (parts.empty()) continue;
        std::vector<std::string> texts;
        for (const Division& d : parts) {
            texts.push_back(d.text);
            divisors.insert(d.divisor);
            if (std::find(w.texts.begin(), w.texts.end(), d.text) == w.texts.end()) w.texts.push_back(d.text);
        }
        const std::string named = fmt::format("{} ({})", fmt::join(texts, ", "), site.where);
        if (std::find(w.sites.begin(), w.sites.end(), named) == w.sites.end()) w.sites.push_back(named);
    }
    w.divisors.assign(divisors.begin(), divisors.end());
    return w;
}

}  // namespace

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
    Finding f = make(FindingId::per_call_allocation, faulting ? Severity::problem : Severity::warning, e.kernel,
                     e.result.variants[i].name, title);
    if (allocations >= 1) f.evidence.emplace_back("allocations per call", allocations);
    if (faults) {
        f.evidence.emplace_back("page faults per call", *faults);
        if (e.naive.faults_per_call) f.evidence.emplace_back("the oracle's page faults per call", *e.naive.faults_per_call);
    }
    if (faulting)
        f.meaning = "each call gets memory the kernel has never mapped (a large allocation is returned to the system "
                    "when freed): every page of it faults on first touch, inside the timed call.";
    else if (faults && *faults > oracle_faults + 0.5)
        f.meaning = fmt::format("each call takes {:.1f} page faults, the oracle {:.1f}: memory that is new each call "
                                "(an allocation never freed moves the heap onto fresh pages), though fewer pages than "
                                "a large mapping would fault.",
                                *faults, oracle_faults);
    else if (faults)
        f.meaning = "the allocator hands back the same memory each call (no page faults beyond the oracle's): the "
                    "cost is the allocator calls and whatever the kernel copies into the buffer.";
    else
        f.meaning = "an allocation inside the kernel is timed with it; whether its pages fault each call was not "
                    "counted here.";
    f.advice = "work in place or in a static buffer, allocated once.";
    out.push_back(std::move(f));
}

void code_facts(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out) {
    if (i >= e.patterns.size() || !e.patterns[i]) return;
    const AccessPattern& p = *e.patterns[i];
    const std::optional<AccessPattern>& ref = e.reference ? e.reference->pattern : std::nullopt;
    const std::string name = fn_name(e, i);
    const std::string& variant = e.result.variants[i].name;
    // The window's division is smooth's: a rotate's divisions are index arithmetic
    // (k / dim), which work-per-pixel counts among its instructions; so are a smooth's
    // whose source line divides by dim.
    const WindowDivisions div = window_divisions(p);
    if (e.kernel == Kernel::smooth && div.per_px >= 0.5) {
        Finding f = make(FindingId::variable_divisor, Severity::problem, e.kernel, variant,
                         div.texts.empty()
                             ? fmt::format("{} executes {:.1f} divide instructions per pixel", name, div.per_px)
                             : fmt::format("{} divides by a variable {:.1f} times per pixel: {}", name, div.per_px,
                                           fmt::join(div.texts, ", ")));
        f.evidence = {{"divisions/px", div.per_px}, {"traced at", double(p.dim)}};
        if (!div.sites.empty()) f.evidence.emplace_back("divisions (source line)", fmt::format("{}", fmt::join(div.sites, "; ")));
        if (div.per_px < p.divisions_per_px)
            f.evidence.emplace_back("index divisions/px (by dim, not counted)", p.divisions_per_px - div.per_px);
        if (ref) f.evidence.emplace_back("reference divisions/px", ref->divisions_per_px);
        f.meaning = "a division by a constant compiles to a multiply; these are divisions by a value the compiler "
                    "cannot know (the window's neighbour count held in a variable): tens of cycles each, per pixel.";
        f.advice = fmt::format("divide the interior by the literal 9 (corners by 4, edges by 6){}, so each becomes a "
                               "multiply.",
                               div.divisors.empty() ? std::string()
                                                    : fmt::format(" instead of by {}", fmt::join(div.divisors, ", ")));
        out.push_back(std::move(f));
    }
    if (p.calls_per_px >= 0.5) {
        Finding f = make(FindingId::calls_per_pixel, Severity::problem, e.kernel, variant,
                         fmt::format("{} makes {:.1f} calls per pixel", name, p.calls_per_px));
        f.evidence = {{"calls/px", p.calls_per_px}, {"callees", callee_list(p, 0.1)}, {"traced at", double(p.dim)}};
        if (ref) f.evidence.emplace_back("reference calls/px", ref->calls_per_px);
        f.meaning = "each call saves and restores registers and stops the compiler from keeping sums in registers or "
                    "vectorising across pixels.";
        f.advice = "inline the work into the loop (static inline helpers, or the body itself).";
        out.push_back(std::move(f));
    }
    if (p.threads_per_call >= 1) {
        Finding f = make(FindingId::threads, Severity::problem, e.kernel, variant,
                         fmt::format("{} creates {:.0f} threads per call", name, p.threads_per_call));
        f.evidence = {{"threads created per call", p.threads_per_call}};
        f.meaning = "the driver pins the kernel to one CPU and charges all its CPU time: threads take turns on that "
                    "CPU, and each costs its creation.";
        f.advice = "remove the threads; make the single-threaded loop cheaper.";
        out.push_back(std::move(f));
    }
}

}  // namespace perflab::checks
