#include "scratch_dir.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace perflab {
namespace {

// The scratch directories of an owner that died without cleaning up (kill -9, a
// power cut): named prefix-PID-XXXXXX, their PID gone, and untouched for a while (a
// PID seen from another namespace, or reused, then never costs a live owner its files).
void remove_orphans(const fs::path& tmp, const std::string& prefix) {
    const std::string lead = prefix + "-";
    const auto cutoff = fs::file_time_type::clock::now() - std::chrono::minutes(10);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(tmp, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.compare(0, lead.size(), lead) != 0) continue;
        const std::string rest = name.substr(lead.size());
        const auto dash = rest.find('-');
        if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) continue;
        const pid_t pid = pid_t(std::strtol(rest.c_str(), nullptr, 10));
        if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
        std::error_code e;
        if (!entry.is_directory(e) || entry.is_symlink(e) || fs::last_write_time(entry.path(), e) > cutoff || e) continue;
        fs::remove_all(entry.path(), e);
    }
}

}  // namespace

ScratchDir::ScratchDir(const std::string& prefix) {
    const auto tmp = fs::temp_directory_path();
    remove_orphans(tmp, prefix);
    std::string tmpl = (tmp / (prefix + "-" + std::to_string(getpid()) + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a scratch directory in " + tmp.string() + " (" + std::strerror(errno) +
                                 "): free space there or set TMPDIR");
    path_ = tmpl;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace perflab
