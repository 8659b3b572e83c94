// The counters around each timed call (--counters): a perf_events group read
// per sample and turned into the per-pixel rows of the report.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "perf_counters.hpp"
#include "runner.hpp"

namespace perflab {

class PmuSampleCounters final : public SampleCounters {
public:
    // `events` empty: the default set (cycles, instructions, L1D and LLC load misses).
    static std::variant<std::unique_ptr<PmuSampleCounters>, Unavailable> open(const std::vector<std::string>& events);

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
