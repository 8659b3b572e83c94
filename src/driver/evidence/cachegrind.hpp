// Cache-miss evidence without a PMU: run a program under valgrind's cachegrind,
// which simulates a first-level data cache (D1) and a last-level cache (LL) of a
// given geometry, and read back per-function counts. The simulation is
// deterministic, so two runs of the same variant give the same figures.
#pragma once

#include "common/machine.hpp"

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace perflab {

struct SimulationError {
    std::string message;  // one line, says what to do where something can be done
};

struct SimulatedCache {
    std::size_t size = 0;  // bytes
    int assoc = 0;
    int line = 0;  // bytes
    bool operator==(const SimulatedCache&) const = default;
};

struct CachegrindGeometry {
    SimulatedCache D1;
    SimulatedCache LL;
    std::string source;  // where the figures came from, for reports
};

// cachegrind accepts a cache only when its line is a power of two of at least 16
// bytes, its size is more than one line and fits an int, and its size / (assoc *
// line) sets are a power of two.
std::optional<std::string> cachegrind_geometry_error(const SimulatedCache& c);

// Largest LL simulated from the machine's figures: one core reaches one CCX's L3,
// which is 32 MiB on current Zen parts (without 3D V-Cache), and larger CPUID
// reports in VMs describe no cache a single thread could fill.
inline constexpr std::size_t kSimulatedLLCap = std::size_t{32} << 20;

// D1 from the machine's L1d, LL from its last plausible level whose associativity is
// known (else the level below, the source saying why) capped at kSimulatedLLCap. A level whose set count is not a power of two keeps its size
// and gets a multiple of its ways (as cachegrind itself does for a detected LL).
std::variant<CachegrindGeometry, SimulationError> geometry_from_machine(const MachineInfo& m);

// "D1=32768,8,64:LL=1048576,16,64" (size in bytes, ways, line bytes).
std::variant<CachegrindGeometry, SimulationError> parse_cache_geometry(const std::string& spec);

struct CacheCounts {
    std::uint64_t Ir = 0, I1mr = 0, ILmr = 0;  // instruction reads, their I1 and LL misses
    std::uint64_t Dr = 0, D1mr = 0, DLmr = 0;  // data reads, their D1 and LL misses
    std::uint64_t Dw = 0, D1mw = 0, DLmw = 0;  // data writes, their D1 and LL misses
    CacheCounts& operator+=(const CacheCounts& o);
    bool operator==(const CacheCounts&) const = default;
};

// The field an event of cachegrind's or callgrind's output counts into ("Ir",
// "D1mr", ...); null for an event CacheCounts does not keep.
std::uint64_t CacheCounts::*cache_count_field(std::string_view event);

struct FunctionKey {
    std::string file;
    std::string function;
    auto operator<=>(const FunctionKey&) const = default;
};

struct CachegrindTotals {
    std::map<FunctionKey, CacheCounts> functions;
    CacheCounts total;  // the whole program, checked against the file's summary line
};

// A cachegrind.out file made with --cache-sim=yes.
std::variant<CachegrindTotals, SimulationError> parse_cachegrind_out(std::istream& in);

// Runs argv[0] with its arguments under cachegrind with `geometry`; the child's
// stdout and stderr are kept out of ours, and address-space randomisation is off so
// that runs repeat exactly.
std::variant<CachegrindTotals, SimulationError> run_cachegrind(const std::vector<std::string>& argv,
                                                               const CachegrindGeometry& geometry);

}  // namespace perflab
