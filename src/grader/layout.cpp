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
    l.driver_core = require(root, {"build/driver-core.o", "driver-core.o"}, "driver core object");
    l.include_dir = fs::path(require(root, {"kernels/defs.h", "defs.h"}, "defs.h")).parent_path().string();
    l.link_script = require(root, {"mk/link-driver.sh", "link-driver.sh"}, "link script");
    l.reference_driver = first_existing(root, {"build/reference-driver", "reference-driver"}).value_or("");
    return l;
}

}  // namespace perflab::grader
