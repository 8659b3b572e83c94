// Running one grader step inside the sandbox (src/common/sandbox.hpp): the spawn
// machinery (limits, wall clock, output cap, report pipe) around a bwrap command.
#pragma once

#include <string>

#include "common/sandbox.hpp"
#include "common/subprocess.hpp"

namespace perflab::grader {

// Runs spec.argv inside `box`. spec.cwd and spec.env are ignored (the sandbox clears
// the environment and starts in box.cwd); the limits apply to the whole sandbox.
// A program killed by a signal shows as `signal`, although bwrap reports 128 + N.
Finished spawn_sandboxed(const SandboxSpec& box, SpawnSpec spec);

// The grader's per-hand-in directories. Only `src` and `input` are written by the
// grader; `build` belongs to the sandbox (the compiler writes there), so the grader
// never writes into it after a sandbox ran, and never follows a link placed there.
struct HandinDirs {
    std::string root;   // removed afterwards
    std::string src;    // kernels.c and the allocation guard's source, read-only inside
    std::string build;  // objects and the linked driver, writable by the compile sandbox
    std::string input;  // the copy of the baseline a run reads, read-only inside
    explicit HandinDirs(const std::string& root);
    // Where `src` is for a hand-in whose directory is `root`, without making it.
    static std::string src_of(const std::string& root) { return root + "/src"; }
};

}  // namespace perflab::grader
