// The driver's exit statuses beyond 0 (done), 1 (a problem with the request) and
// 2 (internal): the kernels file's own code failed before any kernel could be
// timed. The grader reads them to tell a hand-in's failure from its own.
#pragma once

namespace perflab {

inline constexpr int kExitHostFailed = 3;    // a constructor or registration crashed or exited
inline constexpr int kExitHostTimedOut = 4;  // ... or did not return within --timeout

}  // namespace perflab
