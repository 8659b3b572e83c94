// C code the grader links itself, never the student's: the allocation guard that
// turns a refused allocation into an unmistakable out-of-memory ending, and the
// stock kernels file a calibration driver is built from.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perflab::grader {

// A hand-in whose allocation the address-space limit refuses ends with this status.
inline constexpr int kOutOfMemoryExit = 86;

std::string alloc_guard_source();
// The linker flags that route the hand-in's allocations through the guard.
std::vector<std::string> alloc_guard_link_flags();
// The allocation the guard's last line in `output` says was refused ("malloc(1024)"),
// or nothing. The line arrives among what the hand-in printed, which may forge one:
// only the guard's exact form is believed, so a forgery can name no more than the
// guard could (a wrapped function and a size), never begin a reason as it likes.
std::optional<std::string> refused_allocation(const std::string& output);

// Naive rotate and smooth, the baseline a calibration driver times through its oracle.
extern const char* const kCalibrationKernelsSource;

}  // namespace perflab::grader
