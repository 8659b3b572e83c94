#include "counter_sampling.hpp"

#include <fmt/format.h>

namespace perflab {
namespace {

// Short row labels for the default metrics; any other event is labelled by name.
std::string label_for(const std::string& metric) {
    if (metric == "cycles") return "cycles/px";
    if (metric == "instructions") return "instr/px";
    if (metric == "L1D load misses") return "L1D miss/px";
    if (metric == "LLC load misses") return "LLC miss/px";
    return metric + "/px";
}

}  // namespace

PmuSampleCounters::PmuSampleCounters(PerfCounterGroup group, std::vector<std::string> labels,
                                     std::optional<std::size_t> cycles, std::optional<std::size_t> instructions)
    : group_(std::move(group)), labels_(std::move(labels)), cycles_(cycles), instructions_(instructions) {}

std::variant<std::unique_ptr<PmuSampleCounters>, Unavailable> PmuSampleCounters::open(
    const std::vector<std::string>& events, pid_t pid) {
    std::vector<std::string> names, labels;
    std::optional<std::size_t> cycles, instructions;
    if (events.empty()) {
        for (const auto& e : default_counter_events()) {
            if (e.metric == "cycles") cycles = names.size();
            if (e.metric == "instructions") instructions = names.size();
            names.push_back(e.event);
            labels.push_back(label_for(e.metric));
        }
    } else {
        names = events;
        for (const auto& e : events) labels.push_back(label_for(e));
    }
    auto group = PerfCounterGroup::open(names, pid);
    if (auto* why = std::get_if<Unavailable>(&group)) return *why;
    return std::unique_ptr<PmuSampleCounters>(
        new PmuSampleCounters(std::move(std::get<PerfCounterGroup>(group)), labels, cycles, instructions));
}

CounterValues PmuSampleCounters::per_pixel(double pixels) {
    CounterValues out;
    auto reading = group_.read();
    // A group that never got onto the PMU has no figures: report none, not zeros.
    if (!std::holds_alternative<CounterReading>(reading)) return out;
    std::vector<double> values = std::get<CounterReading>(reading).scaled();
    for (std::size_t i = 0; i < values.size(); ++i) out.emplace_back(labels_[i], values[i] / pixels);
    if (cycles_ && instructions_ && values[*cycles_] > 0)
        out.emplace_back("IPC", values[*instructions_] / values[*cycles_]);
    return out;
}

std::optional<Unavailable> PmuHostCounters::try_open(pid_t pid) {
    auto opened = PmuSampleCounters::open(events_, pid);
    if (auto* why = std::get_if<Unavailable>(&opened)) return *why;
    open_[pid] = std::move(std::get<std::unique_ptr<PmuSampleCounters>>(opened));
    return std::nullopt;
}

SampleCounters* PmuHostCounters::for_process(pid_t pid) {
    auto it = open_.find(pid);
    if (it != open_.end()) return it->second.get();
    // A host started again after a crash: its counters open like the first's did.
    auto opened = PmuSampleCounters::open(events_, pid);
    auto* counters = std::get_if<std::unique_ptr<PmuSampleCounters>>(&opened);
    if (!counters) return nullptr;
    return (open_[pid] = std::move(*counters)).get();
}

}  // namespace perflab
