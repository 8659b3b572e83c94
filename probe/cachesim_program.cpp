#include "cachesim_program.hpp"

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

namespace {

// A traced program runs as long as it needs: cachesim is a user's tool, not a grader.
constexpr double kNoWallClock = 7 * 24 * 3600.0;
// The program's own output is held until it ends; a runaway one is cut, and says so.
constexpr std::size_t kOutputCap = 64 * 1024 * 1024;

} // namespace

TracedProgram::TracedProgram(const std::vector<std::string>& argv) : argv_(argv) {
    const auto valgrind = find_executable("valgrind");
    if (!valgrind)
        throw std::runtime_error("valgrind is not installed; install it with `apt-get install valgrind`");
    if (argv.empty()) throw std::runtime_error("no program to trace was given after --");
    const auto program = find_executable(argv[0]);
    if (!program)
        throw std::runtime_error(fmt::format("cannot run {}: not found or not executable", argv[0]));
    valgrind_ = *valgrind;
    program_path_ = *program;
}

Finished TracedProgram::run(TraceSink& sink) {
    std::vector<std::string> args = {valgrind_, "--tool=lackey", "--trace-mem=yes",
                                     fmt::format("--log-fd={}", kReportFd), "--", program_path_};
    args.insert(args.end(), argv_.begin() + 1, argv_.end());
    SpawnSpec spec = command(std::move(args), kNoWallClock, kOutputCap);
    LackeyTraceReader reader(sink);
    spec.report_pipe = true;
    spec.read_interval_us = kLackeyReadIntervalUs;
    spec.on_report = [&reader](std::string_view chunk) { reader.feed(chunk); };
    spec.on_start = [this](pid_t pid) { pid_ = pid; };
    // The program reads what cachesim was given, but not a terminal: in a process
    // group of its own it would be stopped on its first read.
    if (!::isatty(STDIN_FILENO)) spec.stdin_fd = STDIN_FILENO;
    Finished done = spawn(spec);
    pid_ = -1;
    reader.finish();
    return done;
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

} // namespace perflab
