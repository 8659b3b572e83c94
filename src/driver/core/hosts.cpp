#include "hosts.hpp"

#include <time.h>

#include <algorithm>
#include <fmt/format.h>

#include "host/reference_host.h"

namespace perflab {

std::string HostTiming::describe() const {
    return fmt::format("the kernel host's CPU time, read by the driver ({} ns resolution), less what empty calls "
                       "cost, timed in the same rounds after the same preparation ({} ns with warm caches, more with "
                       "larger images), at {:.3f} cycles per ns; cycles are ticks of the {}",
                       clock_resolution_ns, call_overhead_ns, ticks_per_ns, cycle_clock);
}

KernelHosts::KernelHosts(HostLaunch student, HostLaunch reference)
    : student_launch_(std::move(student)), reference_launch_(std::move(reference)) {}

KernelHost& KernelHosts::running(std::unique_ptr<KernelHost>& host, const HostLaunch& launch) {
    if (!host || !host->alive()) {
        host.reset();
        host = KernelHost::start(launch);
    }
    return *host;
}

KernelHost& KernelHosts::student() {
    try {
        KernelHost& host = running(student_, student_launch_);
        if (!first_registration_) first_registration_ = host.registration();
        return host;
    } catch (const HostStartError& e) {
        // Started again after a kernel's failure, a kernels file's constructors may
        // fail where they did not at first (they can tell a restart): that fails the
        // variant being measured, not the driver.
        if (first_registration_) throw HostDied(e.what(), e.timed_out);
        throw;
    }
}

KernelHost& KernelHosts::reference() { return running(reference_, reference_launch_); }

KernelHost& KernelHosts::empty_calls() { return running(empty_calls_, reference_launch_); }

const HostRegistration& KernelHosts::student_registration() {
    student();
    return *first_registration_;
}

bool KernelHosts::has_references() {
    const auto& variants = reference().registration().variants;
    return std::count_if(variants.begin(), variants.end(), [](const HostVariant& v) { return v.kernel == Kernel::rotate; }) >
           PERFLAB_REF_ROTATE_TILE;
}

HostTiming calibrate_host_timing(KernelHost& reference, const Clock& cycles) {
    HostTiming t;
    t.ticks_per_ns = cycles.ticks_per_second() / 1e9;
    t.cycle_clock = cycles.describe();
    timespec res{};
    clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res);
    t.clock_resolution_ns = std::uint64_t(res.tv_sec) * 1'000'000'000u + std::uint64_t(res.tv_nsec);
    reference.layout(8);
    std::uint64_t least = UINT64_MAX;
    for (int i = 0; i < 200; ++i) least = std::min(least, empty_call_ns(reference));
    t.call_overhead_ns = least;
    return t;
}

static HostCall empty_call(KernelHost& host, const HostFunction& function) {
    HostCall c = host.call(function, 10);
    if (!c.outcome.ok()) throw HostError("the driver's reference host failed an empty call: rebuild with make");
    return c;
}

std::uint64_t empty_call_ns(KernelHost& host) {
    return empty_call(host, {Kernel::rotate, HostFunction::kNothing}).cpu_ns;
}

double empty_call_ticks(KernelHost& host, const HostTiming& timing, std::size_t read_bytes) {
    const HostCall c = empty_call(host, {Kernel::rotate, HostFunction::kReadSource, std::int64_t(read_bytes)});
    return double(c.cpu_ns) * timing.ticks_per_ns - double(c.self_ticks);
}

}  // namespace perflab
