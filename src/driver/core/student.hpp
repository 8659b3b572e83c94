// What the student's kernels.c provides, as its kernel host reported it: the team,
// the graded rotate() and smooth() (by address in the host), and how the file was built.
#pragma once

#include <cstdint>
#include <string>

#include "kernel.hpp"
#include "kernel_host.hpp"

namespace perflab {

struct Team {
    std::string team, name1, email1, name2, email2;
    bool has_second_member = false;
};

// How the student's file was built, recorded by mk/link-host.sh.
struct BuildInfo {
    std::string kernels_path;    // absolute path of the kernels file compiled in
    std::string kernels_sha256;  // of its contents at build time
    std::string kcflags;         // the flags it was compiled with
    long build_time = 0;         // seconds since the epoch
};

struct StudentFile {
    Team team;
    std::uint64_t graded_address[2] = {0, 0};  // rotate(), smooth() in the host
    BuildInfo build;
    std::uint64_t graded(Kernel k) const { return graded_address[k == Kernel::rotate ? 0 : 1]; }
};

StudentFile student_file(const HostRegistration& registration);

}  // namespace perflab
