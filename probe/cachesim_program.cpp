#include "cachesim_program.hpp"

#include "common/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace perflab {

TracedProgram::TracedProgram(const std::vector<std::string>& argv) {
    const auto valgrind = find_executable("valgrind");
    if (!valgrind)
        throw std::runtime_error("valgrind is not installed; install it with `apt-get install valgrind`");
    if (argv.empty()) throw std::runtime_error("no program to trace was given after --");
    const auto program = find_executable(argv[0]);
    if (!program)
        throw std::runtime_error(fmt::format("cannot run {}: not found or not executable", argv[0]));
    program_path_ = *program;

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    // Built before fork: the child may only make async-signal-safe calls.
    std::vector<std::string> args = {*valgrind, "--tool=lackey", "--trace-mem=yes",
                                     fmt::format("--log-fd={}", fds[1]), "--", program_path_};
    args.insert(args.end(), argv.begin() + 1, argv.end());
    std::vector<char*> c_args;
    for (auto& arg : args) c_args.push_back(arg.data());
    c_args.push_back(nullptr);

    pid_ = ::fork();
    if (pid_ < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw std::runtime_error(fmt::format("cannot fork: {}", std::strerror(errno)));
    }
    if (pid_ == 0) {
        ::fcntl(fds[1], F_SETFD, 0); // the log fd must survive exec
        ::dup2(STDERR_FILENO, STDOUT_FILENO);
        ::execv(c_args[0], c_args.data());
        static const char message[] = "cachesim: cannot execute valgrind\n";
        [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
        ::_exit(127);
    }
    ::close(fds[1]);
    trace_fd_ = fds[0];
}

TracedProgram::~TracedProgram() {
    if (trace_fd_ >= 0) ::close(trace_fd_);
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL); // only reached when the trace was abandoned early
        ::waitpid(pid_, nullptr, 0);
    }
}

std::uint64_t TracedProgram::load_base() const {
    char resolved[PATH_MAX];
    if (!::realpath(program_path_.c_str(), resolved))
        throw std::runtime_error(fmt::format("cannot resolve {}: {}", program_path_, std::strerror(errno)));
    std::ifstream maps(fmt::format("/proc/{}/maps", pid_));
    std::string line;
    while (std::getline(maps, line)) {
        std::uint64_t start = 0, offset = 0;
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%" SCNx64 "-%*x %*s %" SCNx64 " %*s %*u %n", &start, &offset,
                        &path_at) >= 2 &&
            path_at > 0 && offset == 0 && line.compare(static_cast<std::size_t>(path_at), std::string::npos, resolved) == 0)
            return start;
    }
    throw std::runtime_error(fmt::format(
        "cannot find where valgrind loaded {} (no mapping in /proc/{}/maps)", program_path_, pid_));
}

int TracedProgram::wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace perflab
