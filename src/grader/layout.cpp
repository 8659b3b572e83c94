#include "layout.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#ifndef PERFLAB_ROOT
#define PERFLAB_ROOT "."
#endif

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

std::optional<std::string> first_existing(const std::string& root, const std::vector<std::string>& candidates) {
    for (const auto& c : candidates)
        if (fs::exists(fs::path(root) / c)) return fs::absolute(fs::path(root) / c).lexically_normal().string();
    return std::nullopt;
}

std::string require(const std::string& root, const std::vector<std::string>& candidates, const char* what) {
    if (auto p = first_existing(root, candidates)) return *p;
    throw std::runtime_error(fmt::format("no {} under '{}' (looked for {}): build perflab there or point --perflab / "
                                         "PERFLAB_HOME at a directory that has it",
                                         what, root, fmt::join(candidates, ", ")));
}

}  // namespace

Layout find_layout(const std::optional<std::string>& explicit_root) {
    std::string root = PERFLAB_ROOT;
    if (const char* env = std::getenv("PERFLAB_HOME"); env && *env) root = env;
    if (explicit_root) root = *explicit_root;
    Layout l;
    l.root = root;
    l.driver = require(root, {"driver"}, "trusted driver");
    l.reference_host = require(root, {"reference-host"}, "reference host");
    l.host_runtime = require(root, {"build/host-runtime.o", "host-runtime.o"}, "kernel host runtime");
    l.include_dir = fs::path(require(root, {"kernels/defs.h", "defs.h"}, "defs.h")).parent_path().string();
    l.link_script = require(root, {"mk/link-host.sh", "link-host.sh"}, "link script");
    l.solutions_host = first_existing(root, {"build/solutions-host", "solutions-host"}).value_or("");
    return l;
}

std::vector<std::string> driver_command(const Layout& layout, const std::string& host) {
    return {layout.driver, "--host", host, "--reference-host", layout.reference_host};
}

}  // namespace perflab::grader
