#include "machine_load.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "common/statistics.hpp"

namespace perflab {
namespace {

// Past these the figures of a run move by as much as a student's change does.
constexpr double kBusyWaiting = 0.10;  // of the run, our tasks runnable but not running
constexpr double kBusySteal = 0.05;
constexpr double kBusySpread = 0.10;
constexpr double kBusyCpu = 0.5;  // runnable tasks or busy fraction, just before the run

std::string percent(double f) { return fmt::format("{:.0f}%", 100 * f); }

}  // namespace

std::optional<double> oracle_spread(const RunResult& run) {
    std::vector<double> spreads;
    for (const auto& k : run.kernels)
        for (const auto& v : k.variants)
            for (const auto& d : v.dims) {
                if (d.baseline_sample_cpes.empty()) continue;
                const double least = *std::min_element(d.baseline_sample_cpes.begin(), d.baseline_sample_cpes.end());
                if (least > 0) spreads.push_back(median(d.baseline_sample_cpes) / least - 1);
            }
    if (spreads.empty()) return std::nullopt;
    return median(spreads);
}

std::optional<std::string> cpu_choice_line(const RunResult& run) {
    const auto& cpus = run.cpus_before;
    if (cpus.size() < 2) return std::nullopt;
    auto busy = [](const CpuBusyness& c) { return std::max(c.runnable, c.busy_fraction); };
    const auto busiest = std::max_element(cpus.begin(), cpus.end(), [&](auto& a, auto& b) { return busy(a) < busy(b); });
    if (busy(*busiest) < kBusyCpu) return std::nullopt;
    const auto chosen = std::find_if(cpus.begin(), cpus.end(), [&](auto& c) { return c.cpu == run.clock.pinned_cpu; });
    if (chosen == cpus.end()) return std::nullopt;
    auto seen = [](const CpuBusyness& c) {
        return fmt::format("{:.1f} other tasks runnable, {} busy", c.runnable, percent(c.busy_fraction));
    };
    if (chosen == busiest)
        return fmt::format("Timing on CPU {}; every allowed CPU was busy just before the run (this one: {}).",
                           chosen->cpu, seen(*chosen));
    return fmt::format("Timing on CPU {}, the quietest of {} just before the run ({}; CPU {}: {}).", chosen->cpu,
                       cpus.size(), seen(*chosen), busiest->cpu, seen(*busiest));
}

std::optional<std::string> busy_line(const RunResult& run) {
    std::vector<std::string> causes;
    if (const auto& i = run.interference) {
        if (i->waiting_fraction >= kBusyWaiting)
            causes.push_back(fmt::format("other tasks on CPU {} kept this run waiting {} of its time",
                                         run.clock.pinned_cpu, percent(std::min(i->waiting_fraction, 1.0))));
        if (i->steal_fraction >= kBusySteal)
            causes.push_back(fmt::format("the hypervisor took {} of the CPU", percent(i->steal_fraction)));
    }
    const auto spread = oracle_spread(run);
    if (spread && *spread >= kBusySpread)
        causes.push_back(fmt::format("the oracle's typical sample was {} slower than its fastest", percent(*spread)));
    if (causes.empty()) return std::nullopt;
    std::string line = "Busy machine: ";
    for (std::size_t i = 0; i < causes.size(); ++i)
        line += (i == 0 ? "" : i + 1 == causes.size() ? ", and " : ", ") + causes[i];
    return line + "; these figures are less certain: rerun when the machine is quieter (uptime shows its load).";
}

}  // namespace perflab
