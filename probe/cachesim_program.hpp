// Runs a program under `valgrind --tool=lackey --trace-mem=yes` with the trace
// streamed through a pipe, never written to disk.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

class TracedProgram {
public:
    // Starts valgrind on argv (program first). The program's stdout is sent to
    // stderr so that stdout carries only the simulator's results. Throws
    // std::runtime_error with a one-line message if valgrind or the program is missing.
    explicit TracedProgram(const std::vector<std::string>& argv);
    ~TracedProgram();
    TracedProgram(const TracedProgram&) = delete;
    TracedProgram& operator=(const TracedProgram&) = delete;

    int trace_fd() const { return trace_fd_; }

    // Where the program file is mapped (its offset-0 mapping), read from the maps
    // of the valgrind process, which hosts the program. Valid once the trace has
    // shown an instruction: valgrind maps the program before running any of it.
    std::uint64_t load_base() const;

    // Waits for valgrind; returns the program's exit status (128 + signal if killed).
    int wait();

private:
    std::string program_path_;
    pid_t pid_ = -1;
    int trace_fd_ = -1;
};

} // namespace perflab
