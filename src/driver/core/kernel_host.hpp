// The driver's end of a kernel host: the separate process (src/host/) in which a
// kernels file's functions run, so that the driver - which generates inputs,
// times, checks, scores and reports - never maps student code.
//
// Timing comes from this side: a call is charged all the CPU time the host used
// since the end of the previous command (its process CPU-time clock, read here),
// so a host that works before it is asked, spins between calls or lies about when
// it finished gains nothing. Host and driver share one pinned CPU: the host runs
// while the driver waits for its reply, and the other CPU stays out of it (on
// these VMs the two vCPUs are SMT siblings: a busy neighbour slows a kernel).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/sandbox.hpp"
#include "driver/core/call_outcome.hpp"
#include "driver/core/kernel.hpp"

struct perflab_host_control;

namespace perflab {

class HostOutput;

// A host that cannot be started or stopped answering: one line, cause and remedy.
struct HostError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The kernels file's own code failed before any kernel could run: a constructor or
// a register_*_functions call crashed, exited or never returned.
struct HostStartError : HostError {
    HostStartError(const std::string& what, bool timed_out, int signal = 0)
        : HostError(what), timed_out(timed_out), signal(signal) {}
    bool timed_out;
    int signal;  // the signal that ended it, when one did (SIGSYS: the seccomp filter)
};

// A host running a kernels file died or stopped answering outside a call, while
// taking its images: the kernels file's failure (its threads or signal handlers),
// which the runner reports as the variant's, not the driver's.
struct HostDied : HostError {
    HostDied(const std::string& what, bool timed_out, bool tampered = false)
        : HostError(what), timed_out(timed_out), tampered(tampered) {}
    bool timed_out;
    bool tampered;  // it ran where it may only wait (see KernelHost::command)
};

struct HostLaunch {
    std::string executable;
    // Runs the host confined (the grader's way): the sandbox's files and limits; the
    // host's control block is added to what it keeps. None: run it as it is.
    std::optional<SandboxSpec> sandbox;
    unsigned start_seconds = 30;  // for the host's constructors and registration
    // Where the host's stdout and stderr go, for every start of it: a kernels file's
    // prints are its own, shown apart from the driver's messages and reports (none:
    // the driver's own hosts, which print nothing, keep the driver's streams).
    std::shared_ptr<HostOutput> output{};
    // It runs a kernels file: its failures outside a call are HostDied, not HostError.
    bool untrusted = false;
};

struct HostText {
    bool present = false;
    bool cut = false;  // longer than the host passes on: `text` is its start
    std::string text;  // valid UTF-8 (see utf8.hpp)
};

struct HostVariant {
    Kernel kernel;
    int index;              // among the kernel's registered variants
    std::uint64_t address;  // in the host: identity only, never called here (0: registered as NULL)
    HostText description;
};

// What the host's registration said. Untrusted: names things, decides nothing.
struct HostRegistration {
    HostText team[5];  // team, name1, email1, name2, email2
    std::string kernels_path, kernels_sha256, kcflags;
    long build_time = 0;
    std::uint64_t graded_address[2] = {0, 0};
    std::vector<HostVariant> variants;
    int dropped = 0;  // registered past the PERFLAB_HOST_MAX_VARIANTS the host keeps
};

// An image's region: shared memory the driver made, at `region` in the host and at
// `local` here. Only `region` comes from the host (to name a fault's place); the
// size and the pixels' offset follow host_protocol.h's rule, worked out here.
struct RemoteImage {
    std::uint64_t region = 0, region_bytes = 0, pixels = 0;
    std::uint8_t* local = nullptr;
    std::uint64_t region_end() const { return region + region_bytes; }
};

// The function a call runs: a registered variant, the graded rotate()/smooth(),
// or nothing at all (the cost of the call itself).
struct HostFunction {
    Kernel kernel;
    int variant;
    std::int64_t arg = 0;  // kAtAddress: the function's address; the reference host's tile edge
    static constexpr int kGraded = -2;
    static constexpr int kNothing = -5;
    static constexpr int kAtAddress = -6;
    static constexpr int kReadSource = -7;
};

struct HostCall {
    CallOutcome outcome;
    std::uint64_t cpu_ns = 0;  // host CPU time since the end of the previous command
    std::uint64_t self_ticks = 0;  // kReadSource: the host's own TSC time of its reads (believe only the driver's hosts)
};

class KernelHost {
public:
    // Starts the host and waits for its registration. Throws HostError.
    static std::unique_ptr<KernelHost> start(const HostLaunch& launch);
    ~KernelHost();
    KernelHost(const KernelHost&) = delete;
    KernelHost& operator=(const KernelHost&) = delete;

    const HostRegistration& registration() const { return registration_; }
    const std::string& executable() const { return launch_.executable; }
    const HostLaunch& launch() const { return launch_; }
    pid_t pid() const { return host_pid_; }
    bool alive() const { return alive_; }

    // Images for `dim`, shared with the host (the host cannot shrink or grow their
    // memory: it is sealed). The previous images' memory is unmapped here, so a
    // HostImage of them must not outlive this call. Throws HostError when they
    // cannot be made.
    void layout(int dim);
    int dim() const { return dim_; }
    const RemoteImage& src() const { return src_; }
    const RemoteImage& dst() const { return dst_; }

    // The host's memory (explain reads a function's first bytes). Throws HostError.
    void read(std::uint64_t address, std::span<std::uint8_t> bytes);

    // Has the host read one byte of every page its pixels lie on (PERFLAB_HOST_OP_TOUCH),
    // untimed; for just before a call's input is written. A host that dies or stalls
    // here is reported by the next call().
    void touch_images(unsigned timeout_seconds);

    // One call on the current images. A crash, `timeout_seconds` (0 = none) passing,
    // or a host that skipped the reads every call begins with (host_protocol.h)
    // ends the host: alive() is then false.
    HostCall call(const HostFunction& fn, unsigned timeout_seconds);

private:
    explicit KernelHost(HostLaunch launch);
    void spawn();
    void read_registration();
    // Issues the command already filled in and waits for the reply.
    // awake: the host's CPU clock ran between its last reply and this command.
    enum class Wait { replied, died, timed_out, awake };
    Wait command(unsigned timeout_seconds);
    Wait wait_reply(std::uint32_t target, unsigned timeout_seconds);
    Wait sleep_until_reply(std::uint32_t target, std::chrono::steady_clock::time_point deadline);
    // A host that has ended is a kernels file's failure (HostDied) when it runs one.
    std::uint64_t cpu_ns();
    std::uint64_t settled_cpu_ns();
    std::uint64_t first_words() const;  // what the host must report as `touched`
    CallOutcome death_outcome();
    void refuse_stale_build();
    // Waits up to `ms` for the child to end; true once it is reaped (or already gone).
    bool reap_within(int ms);
    void kill_host();

    // The host's death, or its stall for `timeout_seconds`, as a call's outcome.
    CallOutcome failure(Wait w, unsigned timeout_seconds);
    void unmap_images();

    HostLaunch launch_;
    int control_fd_ = -1;
    int images_socket_ = -1;  // this end of the socket the images' memfds go through
    perflab_host_control* control_ = nullptr;
    pid_t child_ = -1;     // what we wait for (the host, or its sandbox)
    pid_t host_pid_ = -1;  // the host itself, for its clock and memory
    pid_t sandbox_init_ = -1;  // the sandbox's pid 1, whose death ends everything inside
    int child_status_ = 0;
    bool alive_ = false;
    std::uint64_t last_cpu_ns_ = 0;
    bool awake_after_reply_ = false;  // still running when settled_cpu_ns gave up waiting
    HostRegistration registration_;
    int dim_ = 0;
    RemoteImage src_, dst_;
    std::uint8_t* images_map_ = nullptr;  // src's region, then dst's
    std::size_t images_bytes_ = 0;
    std::optional<CallOutcome> failed_before_call_;  // set by touch_images
};

}  // namespace perflab
