// What the student's kernels.c provides: the team, the graded rotate() and
// smooth(), and the registration calls. The only unit that names those symbols,
// so everything else links without a student file (the tests do).
#pragma once

#include <string>

#include "kernel.hpp"

namespace perflab {

struct Team {
    std::string team, name1, email1, name2, email2;
};

// How the student's file was built, recorded by mk/link-driver.sh.
struct BuildInfo {
    std::string kernels_path;    // absolute path of the kernels file compiled in
    std::string kernels_sha256;  // of its contents at build time
    std::string kcflags;         // the flags it was compiled with
    long build_time = 0;         // seconds since the epoch
};

struct StudentFile {
    Team team;
    lab_test_func rotate;
    lab_test_func smooth;
    BuildInfo build;
    lab_test_func graded(Kernel k) const { return k == Kernel::rotate ? rotate : smooth; }
};

// Calls register_rotate_functions() and register_smooth_functions() once.
StudentFile load_student_file();

}  // namespace perflab
