// Where the pieces a hand-in is built and run with live: a source tree (driver,
// reference-host, build/host-runtime.o, kernels/defs.h, mk/link-host.sh) or a flat
// deployment directory holding the same files, as Autolab and Gradescope images ship.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perflab::grader {

struct Layout {
    std::string root;
    std::string driver;          // the trusted driver
    std::string reference_host;  // its own kernel host (oracle, references)
    std::string host_runtime;    // what a hand-in's kernel host is linked with
    std::string include_dir;     // holds defs.h
    std::string link_script;     // mk/link-host.sh
    std::string solutions_host;  // the reference solutions as a hand-in; empty in a deployment without one
};

// The trusted driver timing `host` (a hand-in's kernel host): the command the
// grader runs, before the driver's own options.
std::vector<std::string> driver_command(const Layout& layout, const std::string& host);

// `explicit_root` (--perflab) wins over $PERFLAB_HOME, which wins over the tree the
// grader was built in. Throws std::runtime_error naming the missing file and the remedy.
Layout find_layout(const std::optional<std::string>& explicit_root);

}  // namespace perflab::grader
