// Running one untrusted program: its own process group, resource limits, no
// network where the kernel allows it, a wall clock, capped output, and an
// optional report pipe on fd 3 that only the program's own code (not what it
// prints) can reach. Every child process perflab starts goes through here.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perflab {

// 0 leaves a limit as inherited.
struct Limits {
    rlim_t cpu_seconds = 0;
    rlim_t address_space_bytes = 0;
    rlim_t file_size_bytes = 0;
    rlim_t processes = 0;
    rlim_t open_files = 0;
};

struct SpawnSpec {
    std::vector<std::string> argv;
    std::string cwd;                 // empty: the grader's own
    std::vector<std::string> env;    // NAME=VALUE added to the grader's environment
    Limits limits;
    double wall_seconds = 60;
    std::size_t output_cap = 256 * 1024;  // stdout and stderr together (each, with separate_stderr)
    bool separate_stderr = false;    // stderr goes to Finished::error_output instead of joining stdout
    // The bytes of stdout (with stderr, unless separate_stderr), in order, as they
    // arrive, instead of into `output` and with no cap: a listing too large to hold
    // is consumed as it comes.
    std::function<void(std::string_view chunk)> on_output;
    std::string input;               // the program's stdin; empty: /dev/null
    int stdin_fd = -1;               // read as the program's stdin instead of input (a caller passing on its own)
    bool isolate_network = false;
    bool report_pipe = false;        // fd 3 is the write end of a pipe read into `report`
    // With report_pipe: the report's bytes, in order, as they arrive, instead of
    // into `report` and with no cap: a trace too large to hold is consumed as it comes.
    std::function<void(std::string_view chunk)> on_report;
    // Nonzero: the pipes are read at most once per this many microseconds, in large
    // chunks. For a program that writes its report a line per write() (valgrind's
    // lackey does, millions of times): woken for every line, the reader spent as
    // much CPU as the program, in a suite that runs several at once on two cores.
    unsigned read_interval_us = 0;
    // Called in the parent once the program is forked, while it runs (to read its
    // /proc entries from on_report, say).
    std::function<void(pid_t)> on_start;
    bool fixed_addresses = false;    // no address-space randomisation: runs that must repeat exactly
    std::vector<int> inherit_fds;    // kept open at their numbers (>= 4) across exec: a sandbox's seccomp memfd
};

inline constexpr int kReportFd = 3;
// read_interval_us for valgrind's lackey, whose trace comes at about 8 MB/s: each
// read takes some 16 KB, and the 1 MiB pipe holds 60 ms of it.
inline constexpr unsigned kLackeyReadIntervalUs = 2000;

// A spec with no limits beyond the wall clock and the output cap; callers add the rest.
SpawnSpec command(std::vector<std::string> argv, double wall_seconds, std::size_t output_cap = 256 * 1024);

struct Finished {
    int exit_code = -1;   // when it exited
    int signal = 0;       // when a signal ended it
    bool timed_out = false;  // the wall clock ran out and the group was killed
    std::string output;   // stdout and stderr interleaved, at most output_cap bytes, unless on_output took them
    bool output_truncated = false;
    std::string error_output;  // stderr, with separate_stderr only; at most output_cap bytes
    bool error_output_truncated = false;
    std::string report;   // what arrived on the report pipe, unless on_report took it
    bool exited_ok() const { return !timed_out && signal == 0 && exit_code == 0; }
    std::string describe() const;  // "exited with status 3", "was killed by signal 9 (Killed)", ...
};

// Throws std::runtime_error when the program cannot be started at all. An
// exception from on_start, on_output or on_report kills the program's group and is rethrown.
Finished spawn(const SpawnSpec& spec);

// The path execvp would run for command (searched in PATH unless it holds a '/'),
// or nothing when there is none: lets a caller name a missing tool before running it.
std::optional<std::string> find_executable(const std::string& command);

}  // namespace perflab
