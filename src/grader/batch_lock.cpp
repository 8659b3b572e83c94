#include "batch_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

namespace perflab::grader {

BatchLock::BatchLock(const std::string& out_dir) {
    std::filesystem::create_directories(out_dir);
    const std::string path = out_dir + "/.lock";
    // O_CLOEXEC: a driver or compiler the grader starts must not keep the lock
    // alive after the grader is gone.
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw std::runtime_error(fmt::format("cannot open '{}' ({}): check the output directory is writable", path,
                                             std::strerror(errno)));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        char pid[32] = "";
        ssize_t n = pread(fd_, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        close(fd_);
        fd_ = -1;
        if (err != EWOULDBLOCK)
            throw std::runtime_error(fmt::format("cannot lock '{}' ({}): put --out on a filesystem with flock",
                                                 path, std::strerror(err)));
        std::string holder = std::string(pid).substr(0, std::string(pid).find('\n'));
        throw std::runtime_error(fmt::format("{} is being graded by another grader (PID {}): wait for it to finish "
                                             "or stop it, or use another --out",
                                             out_dir, holder.empty() ? "unknown" : holder));
    }
    // The PID only names the holder in another grader's message; the flock alone
    // excludes, so a failed write costs nothing but that name.
    const std::string me = std::to_string(getpid()) + "\n";
    [[maybe_unused]] bool named = ftruncate(fd_, 0) == 0 && pwrite(fd_, me.data(), me.size(), 0) == ssize_t(me.size());
}

BatchLock::~BatchLock() {
    if (fd_ >= 0) close(fd_);
}

}  // namespace perflab::grader
