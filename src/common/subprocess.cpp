#include "subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
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
[[noreturn]] void exec_child(const SpawnSpec& spec, char** argv, char** envp, int in_fd, int out_fd, int err_fd,
                             int report_fd) {
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
    dup2(in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY), 0);
    dup2(out_fd, 1);
    dup2(err_fd >= 0 ? err_fd : out_fd, 2);
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

// The program's stdin as a file of its own rather than a pipe: nothing to feed
// while the program runs, and no SIGPIPE when it leaves its input unread.
int input_file(const std::string& input) {
    if (input.empty()) return -1;
    int fd = memfd_create("perflab-input", MFD_CLOEXEC);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot hold a program's input ({})", std::strerror(errno)));
    for (std::size_t done = 0; done < input.size();) {
        ssize_t n = write(fd, input.data() + done, input.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int error = errno;
            close(fd);
            throw std::runtime_error(fmt::format("cannot hold a program's input ({})", std::strerror(error)));
        }
        done += std::size_t(n);
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

// Where the bytes read from one of the program's pipes go: kept up to a cap, or
// handed on as they come.
struct Channel {
    std::string* text;
    std::size_t cap;
    bool* truncated;  // null: bytes past the cap are dropped unremarked
    const std::function<void(std::string_view)>* stream;

    void take(const char* data, std::size_t n) const {
        if (stream) return (*stream)(std::string_view(data, n));
        std::size_t keep = std::min(n, cap - std::min(cap, text->size()));
        text->append(data, keep);
        if (keep < n && truncated) *truncated = true;
    }
};

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

    const int in = input_file(spec.input);
    int out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1};
    auto close_all = [&] {
        for (int fd : {in, out[0], out[1], err[0], err[1], rep[0], rep[1]})
            if (fd >= 0) close(fd);
    };
    if (pipe2(out, O_CLOEXEC) != 0 || (spec.separate_stderr && pipe2(err, O_CLOEXEC) != 0) ||
        (spec.report_pipe && pipe2(rep, O_CLOEXEC) != 0)) {
        int error = errno;
        close_all();
        throw std::runtime_error(fmt::format("cannot create a pipe ({}): raise the open-file limit", std::strerror(error)));
    }
    // The program opens the pipe by path (/dev/fd/3); a sandbox runs it as another uid.
    if (rep[1] >= 0) fchmod(rep[1], 0666);
    // Read seldom, the pipe holds what arrives meanwhile (best effort: a user over
    // the pipe-size quota keeps the default, and the writer only waits a little).
    if (spec.read_interval_us && rep[0] >= 0) fcntl(rep[0], F_SETPIPE_SZ, 1 << 20);
    pid_t pid = fork();
    if (pid < 0) {
        int error = errno;
        close_all();
        throw std::runtime_error(fmt::format("cannot fork ({}): too many processes?", std::strerror(error)));
    }
    if (pid == 0)
        exec_child(spec, argv.data(), envp.data(), spec.stdin_fd >= 0 ? spec.stdin_fd : in, out[1], err[1], rep[1]);
    setpgid(pid, pid);  // also here, so killpg works even before the child ran
    for (int fd : {in, out[1], err[1], rep[1]})
        if (fd >= 0) close(fd);

    Finished f;
    const Channel channels[3] = {{&f.output, spec.output_cap, &f.output_truncated, spec.on_output ? &spec.on_output : nullptr},
                                 {&f.error_output, spec.output_cap, &f.error_output_truncated, nullptr},
                                 {&f.report, kReportCap, nullptr, spec.on_report ? &spec.on_report : nullptr}};
    struct pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {rep[0], POLLIN, 0}};
    int open_fds = int(std::count_if(std::begin(fds), std::end(fds), [](const pollfd& p) { return p.fd >= 0; }));
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.wall_seconds);
    char buf[65536];
    bool more_waiting = false;  // a read filled buf: read on before sleeping again
    try {
        if (spec.on_start) spec.on_start(pid);
        while (open_fds > 0) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                f.timed_out = true;
                break;
            }
            if (spec.read_interval_us && !more_waiting) usleep(spec.read_interval_us);
            more_waiting = false;
            int n = poll(fds, 3, int(std::min<long long>(left.count(), 1000)));
            if (n < 0 && errno != EINTR) break;
            for (int i = 0; i < 3; ++i) {
                if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                ssize_t got = read(fds[i].fd, buf, sizeof buf);
                if (got <= 0) {
                    close(fds[i].fd);
                    fds[i].fd = -1;
                    --open_fds;
                    continue;
                }
                more_waiting = more_waiting || std::size_t(got) == sizeof buf;
                channels[i].take(buf, std::size_t(got));
            }
        }
    } catch (...) {
        // A caller that gave up on the run (a trace it cannot use) leaves nothing running.
        killpg(pid, SIGKILL);
        for (auto& p : fds)
            if (p.fd >= 0) close(p.fd);
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        throw;
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

std::optional<std::string> find_executable(const std::string& command) {
    if (command.find('/') != std::string::npos) {
        if (access(command.c_str(), X_OK) == 0) return command;
        return std::nullopt;
    }
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        const std::size_t colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        dirs.remove_prefix(colon + 1);
    }
}

}  // namespace perflab
