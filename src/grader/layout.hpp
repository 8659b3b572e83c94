// Where the pieces a hand-in is linked with live at run time: a source tree
// (build/driver-core.o, kernels/defs.h, mk/link-driver.sh) or a flat deployment
// directory holding the same three files, as Autolab and Gradescope images ship.
#pragma once

#include <optional>
#include <string>

namespace perflab::grader {

struct Layout {
    std::string root;
    std::string driver_core;   // the relocatable driver core
    std::string include_dir;   // holds defs.h
    std::string link_script;   // mk/link-driver.sh
    std::string reference_driver;  // empty in a deployment without one
};

// `explicit_root` (--perflab) wins over $PERFLAB_HOME, which wins over the tree the
// grader was built in. Throws std::runtime_error naming the missing file and the remedy.
Layout find_layout(const std::optional<std::string>& explicit_root);

}  // namespace perflab::grader
