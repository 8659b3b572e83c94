// The two kernel hosts a run talks to: the student's (their kernels.c) and the
// driver's own reference host (oracle, memcpy, reference kernels), started on
// demand and started again after a kernel crashed one. How host CPU time becomes
// the report's cycles lives here too, measured on the reference host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "common/clock.hpp"
#include "driver/core/kernel_host.hpp"

namespace perflab {

struct HostTiming {
    double ticks_per_ns = 1;          // the report's cycles (the TSC's ticks) per ns
    std::uint64_t call_overhead_ns = 0;  // an empty call with warm caches (the runner times its own in every round)
    std::uint64_t clock_resolution_ns = 0;
    std::string cycle_clock;             // Clock::describe() of what the cycles are ticks of
    std::string describe() const;
};

class KernelHosts {
public:
    KernelHosts(HostLaunch student, HostLaunch reference);

    // Running hosts; one that died is started again. Throws HostError.
    KernelHost& student();
    KernelHost& reference();
    // A second reference host that only ever makes empty calls (the cost of a call
    // apart from its kernel): in the oracle's own process they would warm its call
    // path for the oracle's next sample and not for the student's.
    KernelHost& empty_calls();
    // The student host's registration, from its first start.
    const HostRegistration& student_registration();
    bool has_references();  // the reference host registered the reference kernels

private:
    KernelHost& running(std::unique_ptr<KernelHost>& host, const HostLaunch& launch);
    HostLaunch student_launch_, reference_launch_;
    std::unique_ptr<KernelHost> student_, reference_, empty_calls_;
    std::optional<HostRegistration> first_registration_;
};

// The floor of an empty call's host CPU time (many calls, the least), and the
// rate of `cycles` (the calibrated TSC) that turns nanoseconds into the report's cycles.
HostTiming calibrate_host_timing(KernelHost& reference, const Clock& cycles);

// The host CPU time of one call of nothing on one of the driver's own hosts, with
// warm caches and no images (calibration). Throws HostError.
std::uint64_t empty_call_ns(KernelHost& host);

// One of the runner's empty calls, in the report's cycles: the host CPU time of a call
// that reads the lines of src, as every kernel does (`read_bytes` of them at most),
// less that reading's own TSC time (PERFLAB_HOST_READ_SRC): what a call costs apart
// from its kernel. Only on one of the driver's own hosts, whose report of its own
// time is believed. Throws HostError.
double empty_call_ticks(KernelHost& host, const HostTiming& timing, std::size_t read_bytes);

}  // namespace perflab
