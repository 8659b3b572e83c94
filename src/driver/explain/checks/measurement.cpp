// measurement-quality: whether the machine was quiet and the timings converged
// enough for the figures to be trusted.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

// Appends one measurement-quality finding.
struct Adder {
    std::vector<Finding>& out;
    void operator()(Severity s, std::string title, Evidence ev, std::string meaning, std::string advice) const {
        Finding f = make(FindingId::measurement_quality, s, {}, {}, std::move(title));
        f.evidence = std::move(ev);
        f.meaning = std::move(meaning);
        f.advice = std::move(advice);
        out.push_back(std::move(f));
    }
};

// Timings of the variants that did not converge.
void unconverged_timings(const ExplainData& data, const Adder& add) {
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
}

// The driver's own timings (the oracle's spread, the references') per kernel.
void oracle_noise(const ExplainData& data, const Adder& add) {
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
}

// The clock: frequency control, turbo.
void frequency(const ExplainData& data, const Adder& add) {
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
}

// Other processes on the pinned CPU, the pinning itself, counters and figures.
void machine(const ExplainData& data, const Adder& add) {
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
}

}  // namespace

void measurement_quality(const ExplainData& data, std::vector<Finding>& out) {
    const std::size_t before = out.size();
    const Adder add{out};
    unconverged_timings(data, add);
    oracle_noise(data, add);
    frequency(data, add);
    machine(data, add);
    if (out.size() == before)
        add(Severity::ok, "timings converged on a quiet, pinned CPU", {{"CPU", double(data.pinned_cpu)}}, "", "");
}

void busy_timings(const ExplainData& data, std::vector<Finding>& out) {
    if (!data.system.load || data.system.load->busy_fraction <= kBusyCpu) return;
    const double busy = data.system.load->busy_fraction;
    for (auto& f : out) {
        const bool timing = std::any_of(f.evidence.begin(), f.evidence.end(), [](const auto& kv) {
            return kv.first == "noise band (+/-)" || kv.first == "sweep dim";
        });
        if (!timing) continue;
        f.evidence.emplace_back("CPU busy with other work before timing", busy);
        f.meaning += fmt::format(" Another process kept the CPU {:.0f}% busy before this run: these timings share it, "
                                 "so the gap is less sure than the band says.",
                                 100 * busy);
    }
}

}  // namespace perflab::checks
