// Whether ./driver still matches the kernels file it was built from: the first
// thing to rule out when a change to kernels.c seems to make no difference.
#pragma once

#include <optional>
#include <string>

#include "student.hpp"

namespace perflab {

struct SourceFile {
    std::string path;
    std::optional<long> mtime;  // seconds since the epoch; absent when the file is gone
    std::string sha256;         // of its contents now; "" when unreadable
};

struct BuildState {
    BuildInfo build;
    SourceFile recorded;                // the file the driver was built from, as it is now
    std::optional<SourceFile> local;    // ./kernels.c when it is another file than the recorded one
};

// `local_candidate` is the kernels.c a student would edit (./kernels.c).
BuildState read_build_state(const BuildInfo& build, const std::string& local_candidate = "kernels.c");

// What a plain run says of a stale build: refused when the file it was built from
// holds other code now (the run would time the old code, as if the edit did
// nothing); a warning when ./kernels.c is another file, newer than the build. Nothing
// when the file is gone or only touched.
struct StaleBuild {
    bool refuse = false;
    std::string message;  // one line: cause and remedy
};
std::optional<StaleBuild> stale_build(const BuildState& state);

}  // namespace perflab
