#include "subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace perflab {
namespace {

constexpr std::size_t kReportCap = 64 * 1024 * 1024;

void set_limit(int resource, rlim_t value) {
    if (value == 0) return;
    struct rlimit rl{value, value};
    setrlimit(resource, &rl);
}

// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const SpawnSpec& spec, char** argv, char** envp, int out_fd, int report_fd) {
    setpgid(0, 0);
    if (spec.fixed_addresses) personality(ADDR_NO_RANDOMIZE);
    // A grader killed with SIGKILL must not leave a hand-in running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (spec.isolate_network) unshare(CLONE_NEWNET);  // best effort: refused without privileges
    const Limits& l = spec.limits;
    set_limit(RLIMIT_CPU, l.cpu_seconds);
    set_limit(RLIMIT_AS, l.address_space_bytes);
    set_limit(RLIMIT_FSIZE, l.file_size_bytes);
    set_limit(RLIMIT_NPROC, l.processes);
    set_limit(RLIMIT_NOFILE, l.open_files);
    set_limit(RLIMIT_CORE, 1);
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) _exit(126);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    if (report_fd >= 0) dup2(report_fd, kReportFd);
    // Close everything else, sparing the inherited fds (sorted by spawn) and clearing their FD_CLOEXEC.
    unsigned first = report_fd >= 0 ? kReportFd + 1 : kReportFd;
    for (int fd : spec.inherit_fds) {
        if (fd < int(first)) continue;
        if (unsigned(fd) > first) close_range(first, unsigned(fd) - 1, 0);
        fcntl(fd, F_SETFD, 0);
        first = unsigned(fd) + 1;
    }
    close_range(first, ~0U, 0);
    execvpe(argv[0], argv, envp);
    _exit(127);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

std::string Finished::describe() const {
    if (timed_out) return "did not finish in time";
    if (signal) return fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
    return fmt::format("exited with status {}", exit_code);
}

SpawnSpec command(std::vector<std::string> argv, double wall_seconds, std::size_t output_cap) {
    SpawnSpec spec;
    spec.argv = std::move(argv);
    spec.wall_seconds = wall_seconds;
    spec.output_cap = output_cap;
    return spec;
}

Finished spawn(const SpawnSpec& given) {
    SpawnSpec spec = given;
    std::sort(spec.inherit_fds.begin(), spec.inherit_fds.end());
    std::vector<std::string> args = spec.argv, env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    env.insert(env.end(), spec.env.begin(), spec.env.end());
    auto argv = c_strings(args), envp = c_strings(env);

    int out[2], rep[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) != 0 || (spec.report_pipe && pipe2(rep, O_CLOEXEC) != 0))
        throw std::runtime_error(fmt::format("cannot create a pipe ({}): raise the open-file limit", std::strerror(errno)));
    // The program opens the pipe by path (/dev/fd/3); a sandbox runs it as another uid.
    if (rep[1] >= 0) fchmod(rep[1], 0666);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(fmt::format("cannot fork ({}): too many processes?", std::strerror(errno)));
    if (pid == 0) exec_child(spec, argv.data(), envp.data(), out[1], rep[1]);
    setpgid(pid, pid);  // also here, so killpg works even before the child ran
    close(out[1]);
    if (rep[1] >= 0) close(rep[1]);

    Finished f;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.wall_seconds);
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {rep[0], POLLIN, 0}};
    int open_fds = rep[0] >= 0 ? 2 : 1;
    char buf[65536];
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            f.timed_out = true;
            break;
        }
        int n = poll(fds, 2, int(std::min<long long>(left.count(), 1000)));
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
                continue;
            }
            std::string& sink = i == 0 ? f.output : f.report;
            std::size_t cap = i == 0 ? spec.output_cap : kReportCap;
            std::size_t keep = std::min<std::size_t>(std::size_t(got), cap - std::min(cap, sink.size()));
            sink.append(buf, keep);
            if (i == 0 && keep < std::size_t(got)) f.output_truncated = true;
        }
    }
    // The pipes can close before the program exits (tar still waiting for
    // gzip): give it until the deadline to finish on its own.
    int status = 0;
    bool reaped = false;
    while (!f.timed_out && !reaped) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) reaped = true;
        else if (std::chrono::steady_clock::now() >= deadline) f.timed_out = true;
        else usleep(2000);
    }
    // Whatever is left of the group (a timed-out program, a stray grandchild
    // holding the pipes) goes now.
    killpg(pid, SIGKILL);
    for (auto& p : fds)
        if (p.fd >= 0) close(p.fd);
    while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status) && !f.timed_out) f.signal = WTERMSIG(status);
    return f;
}

}  // namespace perflab
