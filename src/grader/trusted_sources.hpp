// C code the grader links itself, never the student's: the allocation guard that
// turns a refused allocation into an unmistakable out-of-memory ending, and the
// stock kernels file a calibration driver is built from.
#pragma once

#include <string>
#include <vector>

namespace perflab::grader {

// A hand-in whose allocation the address-space limit refuses ends with this status.
inline constexpr int kOutOfMemoryExit = 86;

std::string alloc_guard_source();
// The linker flags that route the hand-in's allocations through the guard.
std::vector<std::string> alloc_guard_link_flags();

// Naive rotate and smooth, the baseline a calibration driver times through its oracle.
extern const char* const kCalibrationKernelsSource;

}  // namespace perflab::grader
