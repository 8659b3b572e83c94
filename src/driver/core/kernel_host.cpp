#include "kernel_host.hpp"

#include <fcntl.h>
#include <sched.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/socket.h>
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
#include <utility>

#include "common/proc_stat.hpp"
#include "driver/core/host_output.hpp"
#include "common/untrusted_text.hpp"
#include "common/utf8.hpp"
#include "defs.h"
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
    out.cut = out.present && t.cut != 0;
    if (!out.present) return out;
    std::string_view bytes(t.text, strnlen(t.text, sizeof t.text));
    // Descriptions and team names reach terminals, reports and pages: one line each.
    out.text = visible_line(out.cut ? without_cut_character(bytes) : bytes);
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
    try {
        host->read_registration();
    } catch (const HostDied& e) {
        // Gone as it answered (its clock unreadable): it never got to its kernels.
        throw HostStartError(e.what(), e.timed_out);
    }
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
    unmap_images();
    if (control_) munmap(control_, sizeof(perflab_host_control));
    if (control_fd_ >= 0) close(control_fd_);
    if (images_socket_ >= 0) close(images_socket_);
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

    int images[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, images) != 0)
        throw HostError(fmt::format("cannot start the kernel host: socketpair: {}", std::strerror(errno)));
    images_socket_ = images[0];
    struct CloseOnReturn {
        int fd;
        ~CloseOnReturn() { close(fd); }
    } host_end{images[1]};

    std::vector<std::string> argv{launch_.executable, "--fd", std::to_string(control_fd_), "--images",
                                  std::to_string(host_end.fd)};
    std::optional<SandboxCommand> boxed;
    int info[2] = {-1, -1};
    if (launch_.sandbox) {
        // bwrap says on --info-fd which process is the sandbox's init; the host is its child.
        if (pipe2(info, O_CLOEXEC) != 0)
            throw HostError(fmt::format("cannot start the kernel host: pipe: {}", std::strerror(errno)));
        SandboxSpec spec = *launch_.sandbox;
        spec.keep_fds.push_back(control_fd_);
        spec.keep_fds.push_back(host_end.fd);
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
        fcntl(host_end.fd, F_SETFD, 0);
        if (launch_.output) {
            dup2(launch_.output->write_fd(), 1);
            dup2(launch_.output->write_fd(), 2);
        }
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
            // The sandbox started (bwrap named its init), and bwrap ends soon after its
            // program: wait for it before blaming the sandbox.
            if (init > 0 && reap_within(2000)) {
                alive_ = false;
                refuse_stale_build();
                const CallOutcome death = death_outcome();
                throw HostStartError(fmt::format("the kernel host {} before its functions were registered: fix "
                                                 "kernels.c's constructors",
                                                 death.describe()),
                                     false, death.signal);
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
        if (w == Wait::died) refuse_stale_build();
        const CallOutcome death = w == Wait::died ? death_outcome() : CallOutcome{};
        std::string why = w == Wait::timed_out
                              ? fmt::format("did not finish registering its functions within {} s (an endless loop in a "
                                            "constructor or a register_*_functions call?)",
                                            launch_.start_seconds)
                              : death.describe() + " before its functions were registered";
        kill_host();
        throw HostStartError(fmt::format("the kernel host {}: fix kernels.c's register_rotate_functions, "
                                         "register_smooth_functions and any constructors",
                                         why),
                             w == Wait::timed_out, death.signal);
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
        registration_.variants.push_back({k, per_kernel[v.kernel == 0 ? 0 : 1]++, v.address, text_of(v.description)});
    }
    last_cpu_ns_ = settled_cpu_ns();
}

KernelHost::Wait KernelHost::wait_reply(std::uint32_t target, unsigned timeout_seconds) {
    // The host shares this CPU: yielding to it once lets a short call run to its end
    // and the host fall asleep before this runs again, without the host making a
    // system call to wake this side inside the CPU time it is charged. A longer call
    // outlasts the host's time slice; this side then sleeps and asks to be woken.
    if (__atomic_load_n(&control_->reply, __ATOMIC_ACQUIRE) == target) return Wait::replied;
    sched_yield();
    const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds ? timeout_seconds : 100000000u);
    __atomic_store_n(&control_->driver_asleep, 1u, __ATOMIC_SEQ_CST);
    const Wait w = sleep_until_reply(target, deadline);
    __atomic_store_n(&control_->driver_asleep, 0u, __ATOMIC_RELAXED);
    return w;
}

KernelHost::Wait KernelHost::sleep_until_reply(std::uint32_t target, Clock::time_point deadline) {
    for (;;) {
        std::uint32_t seen = __atomic_load_n(&control_->reply, __ATOMIC_SEQ_CST);
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
    // A host that ended since its reply (killed by its filter, say) died: its end
    // takes CPU time (a core dump) that is no work between commands.
    if (launch_.untrusted && waitpid(child_, &child_status_, WNOHANG) == child_) {
        alive_ = false;
        return Wait::died;
    }
    // Between a reply and the next command a host has nothing to do but wait: work
    // there is charged to no call, and time spent there is the grader's. (A host
    // cannot sleep there unseen: its seccomp filter allows no timed wait.) The
    // allowance covers the few instructions from its reply to its futex wait when
    // the settled reading came while it was runnable but not running.
    constexpr std::uint64_t kAwakeAllowanceNs = 2'000'000;
    // No honest host's last steps take this much CPU time, however loaded the machine:
    // a host that spun for a bounded while and is asleep again by now has still worked
    // where no call is charged.
    constexpr std::uint64_t kWorkedBetweenNs = 50'000'000;
    const std::uint64_t grown = launch_.untrusted ? cpu_ns() - last_cpu_ns_ : 0;
    if (launch_.untrusted && (awake_after_reply_ || grown > kAwakeAllowanceNs)) {
        // Below the proof, a suspicion, confirmed only by the host at work now: on a
        // loaded machine an honest host's last steps to its wait have outlasted both the
        // yields and the allowance, but asleep its clock stands still.
        awake_after_reply_ = false;
        bool at_work = grown > kWorkedBetweenNs;
        const std::uint64_t before = cpu_ns();
        for (int ms = 0; ms < 20 && !at_work; ++ms) {
            usleep(1000);
            at_work = cpu_ns() - before > kAwakeAllowanceNs / 4;
        }
        if (at_work) {
            // Unless it was dying: a host its filter kills runs on through its signal's
            // end (bwrap, which this waits for, follows it out; seconds on a loaded machine).
            if (reap_within(2000)) {
                alive_ = false;
                return Wait::died;
            }
            return Wait::awake;
        }
        // What it did meanwhile is charged to this command, as ever.
    }
    control_->status = 0;
    std::uint32_t request = __atomic_add_fetch(&control_->request, 1, __ATOMIC_RELEASE);
    futex(&control_->request, FUTEX_WAKE, 1);
    return wait_reply(request, timeout_seconds);
}

std::uint64_t KernelHost::settled_cpu_ns() {
    // The host shares the driver's CPU, and a reply that wakes the driver (after a call
    // that outlasted wait_reply's yield) lets it run before the host is back asleep:
    // the host's last steps would then be charged to the next command, by a varying
    // amount. Yield to it until it sleeps, so that every reading falls at the same
    // point of its loop. (A host that never sleeps is charged its spinning up to the
    // bound, and its next command fails: see command().)
    // The bound is in wall time too: where the scheduler's slice is long, each yield to
    // a host that spins costs a whole slice, and a thousand of them outlasted the grader's
    // wall-clock limit on one machine.
    bool asleep = false;
    const auto give_up = Clock::now() + std::chrono::milliseconds(50);
    for (int i = 0; i < 1000 && !asleep && Clock::now() < give_up; ++i) {
        const auto stat = read_proc_stat(host_pid_);
        asleep = !stat || stat->state != 'R';
        if (!asleep) sched_yield();
    }
    // An honest host is asleep a few instructions after its reply; one still running
    // after all those turns of this CPU is at work between commands (command()).
    if (!asleep) awake_after_reply_ = true;
    return cpu_ns();
}

std::uint64_t KernelHost::cpu_ns() {
    clockid_t id;
    timespec ts{};
    if (clock_getcpuclockid(host_pid_, &id) != 0 || clock_gettime(id, &ts) != 0) {
        const int error = errno;
        if (!launch_.untrusted)
            throw HostError(fmt::format("cannot read the kernel host's CPU-time clock: {}", std::strerror(error)));
        // Its clock goes with the process: a host that ended by itself after a reply
        // (a kernel that answered for the host, then exited).
        alive_ = !reap_within(1000);
        const std::string how = death_outcome().describe();
        kill_host();
        throw HostDied(fmt::format("after its reply, outside a call, the kernel host {}: kernels.c's functions must "
                                   "return, never end the program",
                                   how),
                       false);
    }
    return std::uint64_t(ts.tv_sec) * 1'000'000'000u + std::uint64_t(ts.tv_nsec);
}

namespace {

// Memory for both images: a memfd sealed against shrinking and growing, so that a
// host cannot turn this side's next access to it into a SIGBUS.
int image_memory(std::size_t bytes) {
    const int fd = memfd_create("perflab-images", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, off_t(bytes)) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool send_fd(int socket, int fd) {
    char data = 'I';
    iovec iov{&data, 1};
    union {
        cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(socket, &msg, MSG_NOSIGNAL) == 1;
}

}  // namespace

void KernelHost::unmap_images() {
    if (images_map_) munmap(images_map_, images_bytes_);
    images_map_ = nullptr;
    images_bytes_ = 0;
    src_ = dst_ = {};
}

void KernelHost::layout(int dim) {
    unmap_images();
    dim_ = 0;
    const std::uint64_t bytes = std::uint64_t(dim) * std::uint64_t(dim) * sizeof(pixel);
    const std::uint64_t region_bytes = perflab_host_region_bytes(bytes, std::uint64_t(sysconf(_SC_PAGESIZE)));
    const int fd = image_memory(2 * region_bytes);
    void* map = fd < 0 ? MAP_FAILED : mmap(nullptr, 2 * region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        const int error = errno;
        if (fd >= 0) close(fd);
        throw HostError(fmt::format("cannot make {0}x{0} images to share with the kernel host: {1}: use smaller --dims",
                                    dim, std::strerror(error)));
    }
    images_map_ = static_cast<std::uint8_t*>(map);
    images_bytes_ = 2 * region_bytes;
    const bool sent = send_fd(images_socket_, fd);
    close(fd);

    control_->op = PERFLAB_HOST_OP_LAYOUT;
    control_->dim = dim;
    // A socket that takes nothing: the host died, or closed its end while alive.
    const bool dead = !sent && reap_within(100);
    if (dead) alive_ = false;
    const Wait w = sent ? command(launch_.start_seconds) : dead ? Wait::died : Wait::replied;
    if (!sent || w != Wait::replied || control_->status != 0) {
        // Else its mmap failed. This side has just mapped the same memory under the
        // limits the host inherits, so a host running a kernels file that cannot has
        // had its address space filled by that file (a reservation in a registration
        // function made the grader blame itself and the dims).
        const bool host_at_fault = !sent || w != Wait::replied || launch_.untrusted;
        const std::string why =
            !sent && !dead ? "closed the socket they come through: kernels.c must not close descriptors it did not open"
            : w == Wait::died      ? death_outcome().describe() + ": see what kernels.c's threads or handlers do"
            : w == Wait::timed_out ? std::string("stopped answering: see what kernels.c's threads or handlers do")
            : w == Wait::awake     ? std::string("ran between two commands, where it may only wait: kernels.c's code "
                                                 "runs only while the driver calls it")
            : launch_.untrusted    ? std::string("could not map them, its address space filled by what kernels.c "
                                                 "allocates or maps: free what kernels.c allocates")
                                   : std::string("could not map them: use smaller --dims");
        kill_host();
        const std::string what = fmt::format("the kernel host could not take {0}x{0} images: it {1}", dim, why);
        if (launch_.untrusted && host_at_fault) throw HostDied(what, w == Wait::timed_out, w == Wait::awake);
        throw HostError(what);
    }
    dim_ = dim;
    auto place = [&](std::uint64_t reported_region, std::uint8_t* local) {
        return RemoteImage{reported_region, region_bytes, reported_region + perflab_host_pixels_at(region_bytes, bytes),
                           local};
    };
    src_ = place(control_->src.region, images_map_);
    dst_ = place(control_->dst.region, images_map_ + region_bytes);
    last_cpu_ns_ = settled_cpu_ns();
}

void KernelHost::read(std::uint64_t address, std::span<std::uint8_t> bytes) {
    // process_vm_readv moves at most what one call takes; go on until all is done.
    std::uint8_t* local = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        iovec here{local, left}, there{reinterpret_cast<void*>(address), left};
        const ssize_t n = process_vm_readv(host_pid_, &here, 1, &there, 1, 0);
        if (n <= 0)
            throw HostError(fmt::format("cannot read the kernel host's memory: {}",
                                        n == 0 ? "nothing moved" : std::strerror(errno)));
        local += n;
        address += std::uint64_t(n);
        left -= std::size_t(n);
    }
}

void KernelHost::touch_images(unsigned timeout_seconds) {
    control_->op = PERFLAB_HOST_OP_TOUCH;
    const Wait w = command(timeout_seconds);
    if (w == Wait::replied)
        last_cpu_ns_ = settled_cpu_ns();
    else if (!failed_before_call_)
        failed_before_call_ = failure(w, timeout_seconds);
}

std::uint64_t KernelHost::first_words() const {
    if (dim_ == 0) return 0;
    const std::uint64_t bytes = std::uint64_t(dim_) * std::uint64_t(dim_) * sizeof(pixel);
    const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
    auto of = [&](const RemoteImage& im) {
        // Both mappings of a region start at a page boundary.
        const std::uint64_t offset = im.pixels - im.region;
        return perflab_host_first_words(im.local + offset, bytes, offset % page, page);
    };
    return of(src_) ^ of(dst_);
}

CallOutcome KernelHost::failure(Wait w, unsigned timeout_seconds) {
    CallOutcome out;
    if (w == Wait::awake) {
        out.kind = CallOutcome::Kind::tampered;
    } else if (w == Wait::timed_out) {
        out.kind = CallOutcome::Kind::timed_out;
        out.timeout_seconds = timeout_seconds;
    } else {
        out = death_outcome();
    }
    kill_host();
    return out;
}

HostCall KernelHost::call(const HostFunction& fn, unsigned timeout_seconds) {
    HostCall out;
    if (failed_before_call_) {
        out.outcome = *std::exchange(failed_before_call_, std::nullopt);
        return out;
    }
    const std::uint64_t expected = first_words();
    control_->op = PERFLAB_HOST_OP_CALL;
    control_->kernel = fn.kernel == Kernel::rotate ? 0 : 1;
    control_->variant = fn.variant;
    control_->dim = dim_;
    control_->arg = fn.arg;
    const Wait w = command(timeout_seconds);
    if (w != Wait::replied) {
        out.outcome = failure(w, timeout_seconds);
        return out;
    }
    // A host running a kernels file that refuses a call it was set up for has had its
    // own records overwritten by that file (a kernel that cleared the host's note of
    // where its images are made the grader blame itself): tampering, like a forged XOR.
    const bool refused = control_->status != 0;
    if (refused && !launch_.untrusted)
        throw HostError(fmt::format("the kernel host has no {} variant {}: it registered other functions "
                                    "than at its start",
                                    kernel_name(fn.kernel), fn.variant));
    if (refused || control_->touched != expected) {
        out.outcome.kind = CallOutcome::Kind::tampered;
        kill_host();
        return out;
    }
    const std::uint64_t now = settled_cpu_ns();
    out.cpu_ns = now - last_cpu_ns_;
    out.self_ticks = control_->self_ticks;
    last_cpu_ns_ = now;
    return out;
}

// A host built against another version of the control block says so by its exit
// status: the remedy is a rebuild, not a change to kernels.c.
void KernelHost::refuse_stale_build() {
    if (!WIFEXITED(child_status_) || WEXITSTATUS(child_status_) != PERFLAB_HOST_EXIT_OTHER_VERSION) return;
    kill_host();
    throw HostStartError(
        fmt::format("the kernel host '{}' was built for another version of the driver: rebuild it with make",
                    launch_.executable),
        false);
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
