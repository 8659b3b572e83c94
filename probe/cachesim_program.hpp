// Runs a program under `valgrind --tool=lackey --trace-mem=yes` with the trace
// streamed through the report pipe (common/subprocess), never written to disk.
#pragma once

#include "common/subprocess.hpp"
#include "common/lackey_trace.hpp"

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

class TracedProgram {
public:
    // Checks that valgrind and the program (argv[0]) can be run. Throws
    // std::runtime_error with a one-line message if either is missing.
    explicit TracedProgram(const std::vector<std::string>& argv);

    // Runs the program under valgrind, feeding its trace to sink as it arrives.
    // The program's stdout and stderr come back in the result's output rather
    // than on cachesim's stdout, which carries only the simulator's results.
    Finished run(TraceSink& sink);

    // Where the program file is mapped (its offset-0 mapping), read from the maps
    // of the valgrind process, which hosts the program. Valid during run() once the
    // trace has shown an instruction: valgrind maps the program before running any of it.
    std::uint64_t load_base() const;

private:
    std::vector<std::string> argv_;
    std::string valgrind_;
    std::string program_path_;
    pid_t pid_ = -1;
};

} // namespace perflab
