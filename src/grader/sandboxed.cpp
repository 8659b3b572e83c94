#include "sandboxed.hpp"

#include <sys/stat.h>

#include <csignal>
#include <filesystem>

namespace perflab::grader {
namespace fs = std::filesystem;

Finished spawn_sandboxed(const SandboxSpec& box, SpawnSpec spec) {
    SandboxCommand cmd = sandbox_command(box, spec.argv);
    spec.argv = cmd.argv;
    spec.inherit_fds.insert(spec.inherit_fds.end(), cmd.inherited_fds.begin(), cmd.inherited_fds.end());
    spec.inherit_fds.insert(spec.inherit_fds.end(), box.keep_fds.begin(), box.keep_fds.end());
    spec.cwd.clear();
    spec.env.clear();
    spec.isolate_network = false;  // bwrap's own net namespace
    Finished f = spawn(spec);
    if (f.signal == 0 && f.exit_code > 128 && f.exit_code < 128 + NSIG) {
        f.signal = f.exit_code - 128;
        f.exit_code = -1;
    }
    return f;
}

HandinDirs::HandinDirs(const std::string& r) : root(r), src(src_of(r)), build(r + "/build"), input(r + "/input") {
    for (const auto& d : {root, src, build, input}) fs::create_directories(d);
    // The sandbox runs as an unprivileged uid: it must pass through these directories
    // (never list what is beside them) and own the one it writes.
    for (const auto& d : {root, src, input}) chmod(d.c_str(), 0755);
    sandbox_own(build);
    if (auto parent = fs::path(root).parent_path(); !parent.empty()) chmod(parent.c_str(), 0711);
}

}  // namespace perflab::grader
