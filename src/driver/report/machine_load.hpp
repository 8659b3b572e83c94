// What the reports say about a machine shared with others: which CPU the run chose and
// why, and, when others got in its way, one plain line with what to do. One home for
// those sentences; the text report prints them, the JSON carries them to the page.
#pragma once

#include <optional>
#include <string>

#include "driver/core/results.hpp"

namespace perflab {

// How far the oracle's typical sample lay above its fastest, the median over every
// variant and dim it was timed beside; nothing when it was not timed.
std::optional<double> oracle_spread(const RunResult& run);

// "Timing on CPU 0, the quietest of 2 just before the run (...)", when some allowed
// CPU was busy then; nothing on an idle machine or under --cpu.
std::optional<std::string> cpu_choice_line(const RunResult& run);

// "Busy machine: ...; rerun ...", when other tasks kept the run waiting, the
// hypervisor took the CPU, or the oracle's own samples varied; nothing otherwise.
std::optional<std::string> busy_line(const RunResult& run);

}  // namespace perflab
