// The cycle source. Timing code sees only this interface, so the TSC, a plain
// monotonic clock, or core cycles from the PMU (counters) plug in alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace perflab {

class Clock {
public:
    virtual ~Clock() = default;
    virtual std::string name() const = 0;       // "tsc", "monotonic"
    virtual std::string describe() const = 0;    // one line for reports and --verbose
    virtual double ticks_per_second() const = 0;
    // Bracket the measured code: start() orders nothing before it past it, stop()
    // lets nothing after it begin before it.
    virtual std::uint64_t start() = 0;
    virtual std::uint64_t stop() = 0;
};

// Invariant TSC read with fences, its rate calibrated against CLOCK_MONOTONIC: the
// kernel may call the TSC unstable in a VM, but its rate is what we calibrate here.
class TscClock final : public Clock {
public:
    // Calibrates over about `window_ms` milliseconds (median of a few rounds).
    static std::unique_ptr<TscClock> calibrate(int window_ms = 20);
    static bool available();

    std::string name() const override { return "tsc"; }
    std::string describe() const override;
    double ticks_per_second() const override { return hz_; }
    std::uint64_t start() override;
    std::uint64_t stop() override;

private:
    explicit TscClock(double hz) : hz_(hz) {}
    double hz_;
};

// Nanoseconds from CLOCK_MONOTONIC: the fallback where no TSC can be trusted.
class MonotonicClock final : public Clock {
public:
    std::string name() const override { return "monotonic"; }
    std::string describe() const override { return "CLOCK_MONOTONIC, 1 tick = 1 ns"; }
    double ticks_per_second() const override { return 1e9; }
    std::uint64_t start() override;
    std::uint64_t stop() override;
};

// Ticks per second of `clock` against CLOCK_MONOTONIC, over about `window_ms`:
// the median of five busy rounds, so that one preempted round cannot skew it.
double measure_ticks_per_second(Clock& clock, int window_ms);

// The best clock this machine offers for timing kernels.
std::unique_ptr<Clock> make_default_clock();

std::uint64_t monotonic_ns();

}  // namespace perflab
