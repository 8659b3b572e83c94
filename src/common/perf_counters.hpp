// Hardware (and software) event counters through perf_events, events named the
// libpfm4 way. Where counting cannot work - no PMU in a VM, a strict
// perf_event_paranoid, an unknown event, no libpfm4 at build time - opening says
// why in one line and what to do, so the driver can point to --simulate instead
// of printing zeros as if they had been measured.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace perflab {

// Why counters cannot be had here, each a single line: `cause` what failed,
// `remedy` what the user can do about it.
struct Unavailable {
    std::string cause;
    std::string remedy;
    bool bad_name = false;  // an event name no PMU of this CPU has: the user's mistake, not the machine's
    std::string line() const { return cause + ": " + remedy; }
};

// One default measurement: what it means for the report, and the libpfm4 event
// name chosen for it on this machine.
struct CounterEvent {
    std::string metric;  // "cycles", "instructions", "L1D load misses", "LLC load misses"
    std::string event;   // e.g. "perf::CYCLES"
};

using EventSupported = std::function<bool(const std::string& event)>;

// For each metric, the first candidate `supported` accepts: the portable perf::
// name, then the PMU's own names (AMD Zen 5, 4, 3). A metric no candidate serves
// is left out; if that leaves nothing, the generic names are returned so that
// opening them reports the reason (typically: no PMU).
std::vector<CounterEvent> default_counter_events(const EventSupported& supported);
// The same with event_supported() on this machine.
std::vector<CounterEvent> default_counter_events();

// The candidate names per metric, in order of preference (documented in docs/counters.md).
struct MetricCandidates {
    std::string metric;
    std::vector<std::string> events;
};
const std::vector<MetricCandidates>& counter_event_candidates();

// True when libpfm4 knows the event and the kernel can count it on this CPU. A
// permission refusal counts as supported: opening the group reports it properly.
bool event_supported(const std::string& event);

// Why `event` is not an event name libpfm4 knows for this CPU, if it is not: a
// mistake to refuse before anything is measured, on any machine, PMU or not.
std::optional<Unavailable> bad_event_name(const std::string& event);

struct CounterReading {
    std::vector<std::uint64_t> values;  // in the order the events were given
    std::uint64_t time_enabled_ns = 0;  // since the last start()
    std::uint64_t time_running_ns = 0;
    // The kernel time-shared the PMU with other groups: the values cover only
    // time_running of time_enabled and scaled() extrapolates them.
    bool multiplexed() const { return time_running_ns < time_enabled_ns; }
    std::vector<double> scaled() const;
};

// The events counted together as one perf_events group (the leader and its
// members are scheduled on the PMU all at once, so their ratios are consistent),
// user mode only, on the calling thread, on whichever CPU it runs (the caller pins it).
class PerfCounterGroup {
public:
    // `pid` 0: the calling thread; else that process (the kernel host).
    static std::variant<PerfCounterGroup, Unavailable> open(const std::vector<std::string>& events, pid_t pid = 0);

    PerfCounterGroup(PerfCounterGroup&& other) noexcept;
    PerfCounterGroup& operator=(PerfCounterGroup&& other) noexcept;
    PerfCounterGroup(const PerfCounterGroup&) = delete;
    PerfCounterGroup& operator=(const PerfCounterGroup&) = delete;
    ~PerfCounterGroup();

    const std::vector<std::string>& events() const { return events_; }

    void start();  // zero all counters, then count
    void stop();   // stop counting; the values stay readable
    // Unavailable when the group was never on the PMU while enabled (time_running 0):
    // its zeros would not be measurements.
    std::variant<CounterReading, Unavailable> read() const;

private:
    PerfCounterGroup(std::vector<std::string> events, std::vector<int> fds);
    void close_all();

    std::vector<std::string> events_;
    std::vector<int> fds_;                    // fds_[0] is the leader
    mutable std::vector<std::uint64_t> raw_;  // one PERF_FORMAT_GROUP record, reused
    std::uint64_t enabled_at_start_ = 0, running_at_start_ = 0;
};

}  // namespace perflab
