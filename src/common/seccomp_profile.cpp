#include "seccomp_profile.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <memory>

namespace perflab {
namespace {

// Only an attack makes these: killed in every kind.
const std::vector<std::string> kAttackCalls = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "setns", "unshare", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "bpf", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "keyctl", "add_key",
    "request_key", "userfaultfd", "setsid", "setpgid", "name_to_handle_at", "open_by_handle_at", "iopl", "ioperm",
    "acct", "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "quotactl", "fanotify_init", "syslog", "vhangup", "lookup_dcookie",
};

// Calls that change how the machine schedules or measures: the trusted driver pins
// and times the kernel host from outside; the code inside must not move itself.
const std::vector<std::string> kSchedulingCalls = {
    "perf_event_open", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "setpriority",
};

// Calls that wait for a time, or arrange to be woken after one: the kernel host may
// wait only for the driver (see kKernelHostAllowed).
const std::vector<std::string> kSleepingCalls = {
    "nanosleep", "clock_nanosleep", "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "rt_sigsuspend", "rt_sigtimedwait", "pause", "futex_waitv", "alarm", "setitimer",
    "timer_create", "timerfd_create",
};

// What a statically linked glibc program needs, and nothing that can create a file
// descriptor (no open, pipe, socket, memfd, dup: only inherited fds exist), nor
// anything that sleeps for a time (killed, below): between a reply and the next
// command a host may only wait for the driver, and what it does awake there the
// driver sees in its CPU time.
const std::vector<std::string> kKernelHostAllowed = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "close", "fstat", "newfstatat", "statx",
    "brk", "mmap", "munmap", "mprotect", "madvise", "mremap", "mincore",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "exit", "exit_group",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
    "sigaltstack", "arch_prctl", "set_tid_address", "set_robust_list", "rseq", "getrandom", "sched_yield",
    "sched_getaffinity", "getcpu", "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "tgkill",
    "tkill", "sysinfo", "uname", "getrusage", "times", "restart_syscall", "membarrier",
    // bwrap's init (pid 1 of the sandbox) runs under the filter too and reaps the program.
    "wait4", "waitid",
    "recvmsg",
    // bwrap loads the filter and then execs the program; seccomp stays on across exec.
    "execve",
};

struct Filter {
    scmp_filter_ctx ctx;
    std::uint32_t default_action;
    explicit Filter(std::uint32_t action) : ctx(seccomp_init(action)), default_action(action) {
        if (!ctx) throw SandboxUnavailable("libseccomp cannot create a filter: install libseccomp2 (apt-get install libseccomp2)");
    }
    ~Filter() { seccomp_release(ctx); }

    // By name, so a libseccomp that does not know a newer call skips it (it cannot be
    // made on a kernel that lacks it either, and the default verdict covers it).
    void rule(std::uint32_t action, const std::string& name, std::initializer_list<scmp_arg_cmp> args = {}) {
        int nr = seccomp_syscall_resolve_name(name.c_str());
        if (nr == __NR_SCMP_ERROR || action == default_action) return;  // libseccomp refuses redundant rules
        int rc = seccomp_rule_add_array(ctx, action, nr, unsigned(args.size()), args.begin());
        if (rc != 0)
            throw SandboxUnavailable(fmt::format("libseccomp refused the rule for {} ({}): upgrade libseccomp2 to 2.5 or later",
                                                 name, std::strerror(-rc)));
    }
};

constexpr std::uint32_t kKill = SCMP_ACT_KILL_PROCESS;
constexpr std::uint32_t kRefuse = SCMP_ACT_ERRNO(EPERM);
constexpr std::uint64_t kNamespaceFlags =
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;

// clone3 passes its flags in memory, where a filter cannot read them: ENOSYS makes
// glibc fall back to clone, whose flags are an argument.
void route_clone3(Filter& f) { f.rule(SCMP_ACT_ERRNO(ENOSYS), "clone3"); }

// Processes may be created (the compiler forks cc1, as, ld), namespaces may not.
void kill_namespace_clones(Filter& f) {
    for (std::uint64_t flag = 1; flag; flag <<= 1)
        if (kNamespaceFlags & flag) f.rule(kKill, "clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)});
}

std::vector<std::string> killed(SandboxKind kind) {
    std::vector<std::string> out = kAttackCalls;
    switch (kind) {
        case SandboxKind::kernel_host:
            out.insert(out.end(), kSchedulingCalls.begin(), kSchedulingCalls.end());
            // No thread either: the host must run only while the driver waits on it. A
            // thread ran on between calls, uncharged, and one per free slot of the
            // uid's process limit kept the driver from starting its own hosts.
            out.insert(out.end(), {"socket", "socketpair", "kill", "fork", "vfork", "clone"});
            out.insert(out.end(), kSleepingCalls.begin(), kSleepingCalls.end());
            break;
        case SandboxKind::compiler:
            out.insert(out.end(), kSchedulingCalls.begin(), kSchedulingCalls.end());
            break;
        case SandboxKind::simulator:
            out.insert(out.end(), kSchedulingCalls.begin(), kSchedulingCalls.end());
            out.insert(out.end(), {"socket", "socketpair", "fork", "vfork"});
            break;
    }
    return out;
}

void build(Filter& f, SandboxKind kind) {
    for (const auto& name : killed(kind)) f.rule(kKill, name);
    route_clone3(f);
    switch (kind) {
        case SandboxKind::kernel_host:
            for (const auto& name : kKernelHostAllowed) f.rule(SCMP_ACT_ALLOW, name);
            // A futex wait without a timeout (the host's wait for a command; a wake's
            // fourth argument is 0 too): one on any other word never ends. A timed
            // one sleeps, as the calls below do: between a reply and the next command
            // a sleeping host would stretch the grading at no cost to itself.
            f.rule(SCMP_ACT_ALLOW, "futex", {SCMP_A3(SCMP_CMP_EQ, 0)});
            f.rule(kKill, "futex", {SCMP_A3(SCMP_CMP_NE, 0)});
            // isatty() for stdio's buffering; any other ioctl fails.
            f.rule(SCMP_ACT_ALLOW, "ioctl", {SCMP_A1(SCMP_CMP_EQ, TCGETS)});
            // Reading a limit is fine; raising one is not.
            f.rule(SCMP_ACT_ALLOW, "prlimit64", {SCMP_A2(SCMP_CMP_EQ, 0)});
            f.rule(SCMP_ACT_ALLOW, "getrlimit");
            f.rule(SCMP_ACT_ALLOW, "fcntl", {SCMP_A1(SCMP_CMP_EQ, F_GETFD)});
            f.rule(SCMP_ACT_ALLOW, "fcntl", {SCMP_A1(SCMP_CMP_EQ, F_GETFL)});
            break;
        case SandboxKind::compiler:
            kill_namespace_clones(f);
            f.rule(kRefuse, "socket");  // glibc's nscd lookups try one; the net namespace is empty anyway
            f.rule(kRefuse, "socketpair");
            break;
        case SandboxKind::simulator:
            // Threads only, as valgrind runs a threaded program's: a clone that makes a
            // process (no CLONE_THREAD) is killed like fork.
            kill_namespace_clones(f);
            f.rule(kKill, "clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)});
            break;
    }
}

}  // namespace

std::vector<std::string> seccomp_killed_calls(SandboxKind kind) { return killed(kind); }

int seccomp_program_fd(SandboxKind kind) {
    Filter f(kind == SandboxKind::kernel_host ? kRefuse : SCMP_ACT_ALLOW);
    // Only the native ABI: i386 (int $0x80) and x32 calls hit the bad-arch action.
    seccomp_attr_set(f.ctx, SCMP_FLTATR_ACT_BADARCH, kKill);
    build(f, kind);
    int fd = memfd_create("perflab-seccomp", 0);
    if (fd < 0)
        throw SandboxUnavailable(fmt::format("memfd_create failed ({}): the kernel must be 3.17 or later", std::strerror(errno)));
    int rc = seccomp_export_bpf(f.ctx, fd);
    // Moved to >= 10 so that the caller's dup2 onto 0..3 cannot clobber it.
    int high = fcntl(fd, F_DUPFD, 10);
    close(fd);
    if (rc != 0 || high < 0 || lseek(high, 0, SEEK_SET) != 0) {
        if (high >= 0) close(high);
        throw SandboxUnavailable(fmt::format("cannot export the seccomp filter ({}): check libseccomp2",
                                             std::strerror(rc ? -rc : errno)));
    }
    return high;
}

}  // namespace perflab
