#include "build_state.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fmt/format.h>

#include "common/read_file.hpp"
#include "common/sha256.hpp"

namespace perflab {
namespace {

SourceFile read_source(const std::string& path) {
    SourceFile f{path, std::nullopt, ""};
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return f;
    f.mtime = long(st.st_mtime);
    if (auto bytes = read_file(path)) f.sha256 = sha256_hex(*bytes);
    return f;
}

}  // namespace

BuildState read_build_state(const BuildInfo& build, const std::string& local_candidate) {
    BuildState s{build, read_source(build.kernels_path), std::nullopt};
    std::error_code ec;
    if (std::filesystem::exists(local_candidate, ec) &&
        !std::filesystem::equivalent(local_candidate, build.kernels_path, ec))
        s.local = read_source(std::filesystem::absolute(local_candidate, ec).string());
    return s;
}

std::optional<StaleBuild> stale_build(const BuildState& s) {
    if (s.recorded.mtime && !s.recorded.sha256.empty() && s.recorded.sha256 != s.build.kernels_sha256)
        return StaleBuild{true, fmt::format("{} changed after this driver was built from it, so it would time the old "
                                            "code: run make, then run the driver again",
                                            s.recorded.path)};
    if (s.local && s.local->mtime && *s.local->mtime > s.build.build_time)
        return StaleBuild{false, fmt::format("./kernels.c is newer than this driver, which was built from {}: these "
                                             "figures are that file's; run make KERNELS=kernels.c to time yours",
                                             s.build.kernels_path)};
    return std::nullopt;
}

}  // namespace perflab
