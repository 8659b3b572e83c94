#include "kernel_host.hpp"

#include <fcntl.h>
#include <sched.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/proc_stat.hpp"
#include "host/host_protocol.h"

namespace perflab {
namespace {

using Clock = std::chrono::steady_clock;

long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout = nullptr) {
    return syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

HostText text_of(const perflab_host_text& t) {
    HostText out;
    out.present = t.present != 0;
    if (out.present) out.text.assign(t.text, strnlen(t.text, sizeof t.text));
    return out;
}

// bwrap --info-fd writes {"child-pid": N}: the host's pid as this side sees it.
pid_t read_info_pid(int fd, unsigned seconds) {
    std::string text;
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    char buf[512];
    while (Clock::now() < deadline) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            text.append(buf, std::size_t(n));
            auto j = nlohmann::json::parse(text, nullptr, false);
            if (!j.is_discarded() && j.contains("child-pid")) return j["child-pid"].get<pid_t>();
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    return -1;
}

}  // namespace

KernelHost::KernelHost(HostLaunch launch) : launch_(std::move(launch)) {}

std::unique_ptr<KernelHost> KernelHost::start(const HostLaunch& launch) {
    std::unique_ptr<KernelHost> host(new KernelHost(launch));
    host->spawn();
    host->read_registration();
    return host;
}

KernelHost::~KernelHost() {
    if (alive_) {
        control_->op = PERFLAB_HOST_OP_QUIT;
        __atomic_add_fetch(&control_->request, 1, __ATOMIC_RELEASE);
        futex(&control_->request, FUTEX_WAKE, 1);
        // A host whose destructors or threads do not let it quit at once is not waited for.
        if (reap_within(100)) alive_ = false;
    }
    kill_host();  // also reaps the init of a host that died on its own
    if (control_) munmap(control_, sizeof(perflab_host_control));
    if (control_fd_ >= 0) close(control_fd_);
}

void KernelHost::spawn() {
    control_fd_ = memfd_create("perflab-host-control", MFD_CLOEXEC);
    if (control_fd_ < 0 || ftruncate(control_fd_, sizeof(perflab_host_control)) != 0)
        throw HostError(fmt::format("cannot create the kernel host's control block: {}", std::strerror(errno)));
    void* p = mmap(nullptr, sizeof(perflab_host_control), PROT_READ | PROT_WRITE, MAP_SHARED, control_fd_, 0);
    if (p == MAP_FAILED) throw HostError(fmt::format("cannot map the kernel host's control block: {}", std::strerror(errno)));
    control_ = static_cast<perflab_host_control*>(p);
    control_->magic = PERFLAB_HOST_MAGIC;
    control_->version = PERFLAB_HOST_VERSION;
    control_->request = 1;  // the first command: register (the host answers it on its own)

    std::vector<std::string> argv{launch_.executable, "--fd", std::to_string(control_fd_)};
    std::optional<SandboxCommand> boxed;
    int info[2] = {-1, -1};
    if (launch_.sandbox) {
        // bwrap says on --info-fd which process is the sandbox's init; the host is its child.
        if (pipe2(info, O_CLOEXEC) != 0)
            throw HostError(fmt::format("cannot start the kernel host: pipe: {}", std::strerror(errno)));
        SandboxSpec spec = *launch_.sandbox;
        spec.keep_fds.push_back(control_fd_);
        spec.info_fd = info[1];
        try {
            boxed = sandbox_command(spec, argv);
        } catch (const std::exception& e) {
            close(info[0]);
            close(info[1]);
            throw HostError(std::string("cannot sandbox the kernel host: ") + e.what());
        }
        argv = boxed->argv;
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);

    // bwrap exits once its init reports the program's status, before reaping that
    // init: as a subreaper the driver adopts and reaps it (kill_host) instead of the
    // machine's pid 1, which may take seconds, while the zombie counts against the
    // sandbox uid's process limit that every sandbox on the machine shares.
    if (boxed) prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t pid = fork();
    if (pid < 0) throw HostError(fmt::format("cannot start the kernel host: fork: {}", std::strerror(errno)));
    if (pid == 0) {
        // A host outlives no driver: not even one killed by SIGKILL.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        // Nothing of the driver's reaches the host: not its report pipe (the grader's
        // fd 3), not its files. Only the control block and what the sandbox needs.
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
        fcntl(control_fd_, F_SETFD, 0);
        if (boxed) {
            fcntl(info[1], F_SETFD, 0);
            for (int fd : boxed->inherited_fds) fcntl(fd, F_SETFD, 0);
        }
        execv(args[0], args.data());
        std::fprintf(stderr, "cannot run the kernel host '%s': %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    child_ = host_pid_ = pid;
    alive_ = true;
    if (boxed) {
        close(info[1]);
        const pid_t init = read_info_pid(info[0], launch_.start_seconds);
        close(info[0]);
        sandbox_init_ = init;
        std::optional<pid_t> program;
        for (int i = 0; init > 0 && !program && i < 1000; ++i) {
            program = sandbox_program_pid(init);
            if (!program) usleep(1000);
        }
        if (!program) {
            // A host that died at once (a constructor killed by the seccomp filter) has
            // taken the sandbox's init with it: that is the kernels file's failure.
            if (waitpid(child_, &child_status_, WNOHANG) == child_) {
                alive_ = false;
                throw HostStartError(fmt::format("the kernel host {} before its functions were registered: fix "
                                                 "kernels.c's constructors",
                                                 death_outcome().describe()),
                                     false);
            }
            kill_host();
            throw HostError("the sandbox did not start the kernel host: run 'grader check-sandbox' to see why");
        }
        host_pid_ = *program;
    }
}

void KernelHost::read_registration() {
    // The reply to the first request says the registration functions have returned.
    Wait w = wait_reply(1, launch_.start_seconds);
    if (w != Wait::replied) {
        std::string why = w == Wait::timed_out
                              ? fmt::format("did not finish registering its functions within {} s (an endless loop in a "
                                            "constructor or a register_*_functions call?)",
                                            launch_.start_seconds)
                              : death_outcome().describe() + " before its functions were registered";
        kill_host();
        throw HostStartError(fmt::format("the kernel host {}: fix kernels.c's register_rotate_functions, "
                                         "register_smooth_functions and any constructors",
                                         why),
                             w == Wait::timed_out);
    }
    const perflab_host_control& c = *control_;
    for (int i = 0; i < 5; ++i) registration_.team[i] = text_of(c.team[i]);
    registration_.kernels_path = text_of(c.kernels_path).text;
    registration_.kernels_sha256 = text_of(c.kernels_sha256).text;
    registration_.kcflags = text_of(c.kcflags).text;
    registration_.build_time = long(c.build_time);
    registration_.graded_address[0] = c.graded_address[0];
    registration_.graded_address[1] = c.graded_address[1];
    registration_.dropped = c.dropped_variants;
    int count = std::clamp(int(c.variant_count), 0, PERFLAB_HOST_MAX_VARIANTS);
    int per_kernel[2] = {0, 0};
    for (int i = 0; i < count; ++i) {
        const auto& v = c.variants[i];
        Kernel k = v.kernel == 0 ? Kernel::rotate : Kernel::smooth;
        registration_.variants.push_back({k, per_kernel[v.kernel == 0 ? 0 : 1]++, v.address, text_of(v.description).text});
    }
    last_cpu_ns_ = settled_cpu_ns();
}

KernelHost::Wait KernelHost::wait_reply(std::uint32_t target, unsigned timeout_seconds) {
    const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds ? timeout_seconds : 100000000u);
    for (;;) {
        std::uint32_t seen = __atomic_load_n(&control_->reply, __ATOMIC_ACQUIRE);
        if (seen == target) return Wait::replied;
        // Sleeping in slices notices a host that died without replying.
        timespec slice{0, 20'000'000};
        futex(&control_->reply, FUTEX_WAIT, seen, &slice);
        if (__atomic_load_n(&control_->reply, __ATOMIC_ACQUIRE) == target) return Wait::replied;
        if (waitpid(child_, &child_status_, WNOHANG) == child_) {
            alive_ = false;
            return Wait::died;
        }
        if (Clock::now() >= deadline) return Wait::timed_out;
    }
}

KernelHost::Wait KernelHost::command(unsigned timeout_seconds) {
    if (!alive_) return Wait::died;
    control_->status = 0;
    std::uint32_t request = __atomic_add_fetch(&control_->request, 1, __ATOMIC_RELEASE);
    futex(&control_->request, FUTEX_WAKE, 1);
    return wait_reply(request, timeout_seconds);
}

std::uint64_t KernelHost::settled_cpu_ns() const {
    // The host shares the driver's CPU, and its reply wakes the driver, which may run
    // before the host is back asleep: the host's last steps would then be charged to
    // the next command, by a varying amount. Yield to it until it sleeps, so that every
    // reading falls at the same point of its loop. (A host that never sleeps is charged
    // its spinning anyway; the bound only keeps the driver from waiting on it.)
    for (int i = 0; i < 1000; ++i) {
        const auto stat = read_proc_stat(host_pid_);
        if (!stat || stat->state != 'R') break;
        sched_yield();
    }
    return cpu_ns();
}

std::uint64_t KernelHost::cpu_ns() const {
    clockid_t id;
    timespec ts{};
    if (clock_getcpuclockid(host_pid_, &id) != 0 || clock_gettime(id, &ts) != 0)
        throw HostError(fmt::format("cannot read the kernel host's CPU-time clock: {}", std::strerror(errno)));
    return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

void KernelHost::layout(int dim) {
    control_->op = PERFLAB_HOST_OP_LAYOUT;
    control_->dim = dim;
    Wait w = command(launch_.start_seconds);
    if (w != Wait::replied || control_->status != 0) {
        std::string why = w == Wait::died ? death_outcome().describe()
                          : w == Wait::timed_out ? std::string("stopped answering")
                                                 : std::string("has no memory for them");
        kill_host();
        throw HostError(fmt::format("the kernel host could not make {0}x{0} images: it {1}: use smaller --dims", dim, why));
    }
    dim_ = dim;
    src_ = {control_->src.region, control_->src.region_bytes, control_->src.pixels};
    dst_ = {control_->dst.region, control_->dst.region_bytes, control_->dst.pixels};
    last_cpu_ns_ = settled_cpu_ns();
}

namespace {

// process_vm_readv/writev move at most what one call takes; go on until all is done.
template <class Move>
void move_all(pid_t pid, std::uint64_t address, std::uint8_t* local, std::size_t bytes, Move move, const char* what) {
    while (bytes > 0) {
        iovec here{local, bytes}, there{reinterpret_cast<void*>(address), bytes};
        ssize_t n = move(pid, &here, 1, &there, 1, 0);
        if (n <= 0)
            throw HostError(fmt::format("cannot {} the kernel host's memory: {}", what,
                                        n == 0 ? "nothing moved" : std::strerror(errno)));
        local += n;
        address += std::uint64_t(n);
        bytes -= std::size_t(n);
    }
}

}  // namespace

void KernelHost::write(std::uint64_t address, std::span<const std::uint8_t> bytes) {
    move_all(host_pid_, address, const_cast<std::uint8_t*>(bytes.data()), bytes.size(), process_vm_writev, "write");
}

void KernelHost::read(std::uint64_t address, std::span<std::uint8_t> bytes) {
    move_all(host_pid_, address, bytes.data(), bytes.size(), process_vm_readv, "read");
}

HostCall KernelHost::call(const HostFunction& fn, unsigned timeout_seconds) {
    control_->op = PERFLAB_HOST_OP_CALL;
    control_->kernel = fn.kernel == Kernel::rotate ? 0 : 1;
    control_->variant = fn.variant;
    control_->dim = dim_;
    control_->arg = fn.arg;
    HostCall out;
    switch (command(timeout_seconds)) {
        case Wait::replied: {
            if (control_->status != 0)
                throw HostError(fmt::format("the kernel host has no {} variant {}: it registered other functions "
                                            "than at its start",
                                            kernel_name(fn.kernel), fn.variant));
            const std::uint64_t now = settled_cpu_ns();
            out.cpu_ns = now - last_cpu_ns_;
            last_cpu_ns_ = now;
            return out;
        }
        case Wait::died:
            out.outcome = death_outcome();
            kill_host();
            return out;
        case Wait::timed_out:
            kill_host();
            out.outcome.kind = CallOutcome::Kind::timed_out;
            out.outcome.timeout_seconds = timeout_seconds;
            return out;
    }
    return out;
}

CallOutcome KernelHost::death_outcome() {
    CallOutcome out;
    out.kind = CallOutcome::Kind::signalled;
    // The host's own note is the only one that has the fault address; the exit
    // status is ours, but a sandbox in between may hide the signal.
    if (control_->fault_signal != 0) {
        out.signal = control_->fault_signal;
        out.signal_code = control_->fault_code;
        out.fault_address = reinterpret_cast<const void*>(control_->fault_address);
    } else if (WIFSIGNALED(child_status_)) {
        out.signal = WTERMSIG(child_status_);
    } else if (launch_.sandbox && WIFEXITED(child_status_) && WEXITSTATUS(child_status_) > 128) {
        out.signal = WEXITSTATUS(child_status_) - 128;  // bwrap passes a signal on as 128 + N
    } else {
        out.kind = CallOutcome::Kind::exited;
        out.exit_code = WIFEXITED(child_status_) ? WEXITSTATUS(child_status_) : -1;
    }
    return out;
}

bool KernelHost::reap_within(int ms) {
    for (int waited = 0;; ++waited) {
        const pid_t r = waitpid(child_, &child_status_, WNOHANG);
        if (r == child_ || r < 0) return true;
        if (waited >= ms) return false;
        usleep(1000);
    }
}

void KernelHost::kill_host() {
    if (!alive_ && child_ < 0) return;
    bool reaped = !alive_;
    // The sandbox's init goes first: its death ends everything in its pid namespace
    // and bwrap outside reaps it.
    const pid_t first = sandbox_init_ > 0 ? sandbox_init_ : host_pid_;
    if (!reaped && first > 0 && first != child_) {
        kill(first, SIGKILL);
        reaped = reap_within(500);
    }
    if (!reaped) {
        kill(child_, SIGKILL);
        waitpid(child_, &child_status_, 0);
    }
    // An init that bwrap left unreaped is now this process's child (spawn); any other
    // pid gives ECHILD at once.
    if (sandbox_init_ > 0 && waitpid(sandbox_init_, nullptr, WNOHANG) == 0) {
        kill(sandbox_init_, SIGKILL);
        waitpid(sandbox_init_, nullptr, 0);
    }
    alive_ = false;
    child_ = -1;
    sandbox_init_ = -1;
}

}  // namespace perflab
