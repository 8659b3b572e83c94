#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

namespace perflab {

namespace {

// Beside the destination, so that the rename stays within one filesystem.
std::string temporary_beside(const std::string& path) { return fmt::format("{}.tmp.{}", path, getpid()); }

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return;
    }
    // A pipe, a device or a link (the grader's /dev/fd/N channel, /dev/stdout)
    // must be written through, never renamed over: that would replace the link.
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        std::FILE* f = std::fopen(path.c_str(), "w");
        bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (!f || std::fclose(f) != 0 || !ok)
            throw std::runtime_error(fmt::format("cannot write '{}' ({})", path, std::strerror(errno)));
        return;
    }
    std::string tmp = temporary_beside(path);
    auto fail = [&](const char* what) {
        int err = errno;
        unlink(tmp.c_str());
        throw std::runtime_error(fmt::format("cannot write '{}' ({}: {}): check the directory exists and is writable",
                                             path, what, std::strerror(err)));
    };
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("open");
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            fail("write");
        }
        done += std::size_t(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) fail("fsync");
    if (rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
}

void write_file_making_directory(const std::string& path, const std::string& text) {
    std::error_code ec;  // a directory that cannot be made is reported by the write, naming the path
    if (const auto dir = std::filesystem::path(path).parent_path(); path != "-" && !dir.empty())
        std::filesystem::create_directories(dir, ec);
    write_file_atomically(path, text);
}

std::optional<std::string> why_unwritable(const std::string& path) {
    if (path == "-") return std::nullopt;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        if (access(path.c_str(), W_OK) == 0) return std::nullopt;
        return std::strerror(errno);
    }
    std::string tmp = temporary_beside(path);
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return std::strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return std::nullopt;
}

}  // namespace perflab
