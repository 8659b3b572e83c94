#include "clock.hpp"

#include <cpuid.h>
#include <time.h>
#include <x86intrin.h>

#include <fmt/format.h>

#include "statistics.hpp"
#include <vector>

namespace perflab {

std::uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

bool TscClock::available() {
    unsigned a, b, c, d;
    // A TSC (leaf 1 EDX bit 4) whose rate does not follow the core clock
    // (0x80000007 EDX bit 8): otherwise ticks are not comparable across samples.
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) return false;
    if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007) return false;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return d & (1u << 8);
}

// LFENCE on both sides rather than RDTSCP: the course VMs do not expose RDTSCP,
// and on x86-64 Linux LFENCE waits for every earlier instruction to finish.
static inline std::uint64_t fenced_rdtsc() {
    _mm_lfence();
    std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

std::uint64_t TscClock::start() { return fenced_rdtsc(); }
std::uint64_t TscClock::stop() { return fenced_rdtsc(); }

double measure_ticks_per_second(Clock& clock, int window_ms) {
    constexpr int rounds = 5;
    std::vector<double> rates;
    for (int r = 0; r < rounds; ++r) {
        std::uint64_t ns0 = monotonic_ns(), t0 = clock.start();
        std::uint64_t deadline = ns0 + std::uint64_t(window_ms) * 1000000u / rounds;
        std::uint64_t ns1;
        while ((ns1 = monotonic_ns()) < deadline) {
        }
        std::uint64_t t1 = clock.stop();
        rates.push_back(double(t1 - t0) * 1e9 / double(ns1 - ns0));
    }
    return median(rates);
}

std::unique_ptr<TscClock> TscClock::calibrate(int window_ms) {
    TscClock probe(0);
    return std::unique_ptr<TscClock>(new TscClock(measure_ticks_per_second(probe, window_ms)));
}

std::string TscClock::describe() const {
    return fmt::format("TSC (rdtsc between lfences), {:.3f} GHz calibrated against CLOCK_MONOTONIC",
                       hz_ / 1e9);
}

std::uint64_t MonotonicClock::start() { return monotonic_ns(); }
std::uint64_t MonotonicClock::stop() { return monotonic_ns(); }

std::unique_ptr<Clock> make_default_clock() {
    if (TscClock::available()) return TscClock::calibrate();
    return std::make_unique<MonotonicClock>();
}

}  // namespace perflab
