// The counters around each timed call (--counters): a perf_events group read
// per sample and turned into the per-pixel rows of the report.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/perf_counters.hpp"
#include "driver/core/runner.hpp"

namespace perflab {

class PmuSampleCounters final : public SampleCounters {
public:
    // `events` empty: the default set (cycles, instructions, L1D and LLC load misses),
    // counted in process `pid` (0: this one) - the kernel host, which runs the calls.
    static std::variant<std::unique_ptr<PmuSampleCounters>, Unavailable> open(const std::vector<std::string>& events,
                                                                                pid_t pid = 0);

    void begin() override { group_.start(); }
    void end() override { group_.stop(); }
    CounterValues per_pixel(double pixels) override;

private:
    PmuSampleCounters(PerfCounterGroup group, std::vector<std::string> labels, std::optional<std::size_t> cycles,
                      std::optional<std::size_t> instructions);
    PerfCounterGroup group_;
    std::vector<std::string> labels_;  // row label per event
    std::optional<std::size_t> cycles_, instructions_;  // for the IPC row
};

}  // namespace perflab

namespace perflab {

// The counters of whichever host a series runs in, opened once per process.
class PmuHostCounters final : public HostCounters {
public:
    explicit PmuHostCounters(std::vector<std::string> events) : events_(std::move(events)) {}
    // Opens for `pid` to learn whether counting works at all, before any timing.
    std::optional<Unavailable> try_open(pid_t pid);
    SampleCounters* for_process(pid_t pid) override;

private:
    std::vector<std::string> events_;
    std::map<pid_t, std::unique_ptr<PmuSampleCounters>> open_;
};

}  // namespace perflab
