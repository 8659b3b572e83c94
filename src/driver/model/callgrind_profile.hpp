// What one call executed, instruction by instruction: valgrind's callgrind, with
// the model machine's caches simulated, collecting only inside one function of the
// program (--toggle-collect, no client request in the program needed) and dumping
// each instruction's address with its counts (--dump-instr). The simulation is
// deterministic: the same binary and input give the same counts on every run.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "common/sandbox.hpp"
#include "driver/evidence/cachegrind.hpp"
#include "machine_model.hpp"

namespace perflab {

struct CallgrindProfile {
    std::map<std::uint64_t, CacheCounts> instructions;  // by address: each executed instruction's own counts
    CacheCounts total;
    std::set<std::string> functions;  // the functions the counts fell in (fn= of callgrind)
};

// A callgrind.out file made with --dump-instr=yes --compress-pos=no --compress-strings=no
// --cache-sim=yes. Refuses a file of more than one dump (a client request may add
// one), or whose counts do not add up to its totals.
std::variant<CallgrindProfile, SimulationError> parse_callgrind_out(std::istream& in);

struct CallgrindRun {
    std::vector<std::string> argv;  // the program and its arguments
    std::string collect;            // the function whose calls are counted, callees included
    std::string input;              // the program's stdin
    // The program runs in this sandbox (with valgrind's own needs added), or as it is.
    std::optional<SandboxSpec> sandbox;
};

struct CallgrindResult {
    CallgrindProfile profile;
    std::string report;  // what the program wrote on fd 3
};

// Runs `run` under callgrind on the model's caches (its I1 is the L1d's geometry).
std::variant<CallgrindResult, SimulationError> run_callgrind(const CallgrindRun& run, const MachineModel& model);

}  // namespace perflab
