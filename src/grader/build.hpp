// Turning one untrusted kernels.c into a kernel host: compiled with the instructor's
// fixed flags (a student Makefile is never looked at) in the compiler sandbox, which
// sees the hand-in, a copy of defs.h and the system's headers and tools, nothing else,
// under a time, memory and file-size limit and an output cap; checked statically
// (early, friendly feedback: the sandbox is the fence); then linked with the host
// runtime and the allocation guard into a kernel host, in the same kind of sandbox.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "lab_settings.hpp"
#include "layout.hpp"
#include "outcome.hpp"
#include "sandboxed.hpp"

namespace perflab::grader {

inline constexpr const char* kStudentCFlags = kLabKcflags;

struct BuildSettings {
    double compile_seconds = 60;
    std::uint64_t memory_bytes = 2ull << 30;  // address space of each compiler process
    const std::set<std::string>* library_names = nullptr;  // for the interposition check; null skips it
};

struct Built {
    std::optional<Outcome> failure;  // compile-error or forbidden
    std::string host;                // the linked kernel host when there is no failure
    std::string log;                 // compiler and linker output, for the feedback
};

// Builds dirs.src/kernels.c into dirs.build/kernel-host.
Built build_handin(const Layout& layout, const HandinDirs& dirs, const BuildSettings& settings);

// Links a kernel host from `kernels_text` without checks (the grader's own calibration kernels).
// Throws std::runtime_error with the linker's first error.
std::string link_trusted_host(const Layout& layout, const std::string& work_dir, const std::string& kernels_text);

// The line of compiler/linker output a student should read first.
std::string first_error_line(const std::string& log);

}  // namespace perflab::grader
