// The reference kernels the driver can compare a student's variants with, where
// the build includes them: the repository's driver does, the student handout
// (which holds no solutions) does not and answers nullptr.
#pragma once

#include "defs.h"

namespace perflab {

struct ReferenceCatalog {
    lab_test_func rotate_blocked;                            // square tiles, default edge
    void (*rotate_blocked_tile)(int, pixel*, pixel*, int);   // the same with any tile edge
    int default_tile;
    lab_test_func smooth_two_pass;
    const char* rotate_blocked_name;
    const char* smooth_two_pass_name;
};

const ReferenceCatalog* reference_catalog();

}  // namespace perflab
