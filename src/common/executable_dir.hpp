// Where the running program lives, so that the files it is built beside (the kernel
// hosts, a baked baseline, cacheprobe's result) are found from any working directory.
#pragma once

#include <string>

namespace perflab {

// The directory of /proc/self/exe; "." if it cannot be read.
std::string executable_dir();

}  // namespace perflab
