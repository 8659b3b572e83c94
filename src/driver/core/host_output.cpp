#include "host_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "common/untrusted_text.hpp"
#include "common/utf8.hpp"
#include "driver/core/kernel_host.hpp"
#include "driver/core/results.hpp"

namespace perflab {

HostOutput::HostOutput() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw HostError(fmt::format("cannot make the kernel host's output pipe: {}", std::strerror(errno)));
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    // The reader takes what is there and goes back to waiting: never stuck in read().
    fcntl(read_fd_, F_SETFL, O_NONBLOCK);
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) {
        const int error = errno;
        close(read_fd_);
        close(write_fd_);
        throw HostError(fmt::format("cannot make the kernel host's output pipe: eventfd: {}", std::strerror(error)));
    }
    reader_ = std::thread([this] { read_until_stopped(); });
}

HostOutput::~HostOutput() {
    const std::uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) != sizeof one) std::terminate();  // the reader would never end
    reader_.join();
    close(stop_fd_);
    close(read_fd_);
    close(write_fd_);
}

void HostOutput::read_until_stopped() {
    pollfd watch[2] = {{read_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
        if (poll(watch, 2, -1) < 0 && errno != EINTR) return;
        if (watch[1].revents != 0) return;
        if (watch[0].revents != 0) {
            std::lock_guard lock(mutex_);
            drain_locked();
        }
    }
}

void HostOutput::drain_locked() {
    char buf[16384];
    for (;;) {
        const ssize_t n = read(read_fd_, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            return;  // EAGAIN: all read for now (the driver's own write end keeps EOF away)
        }
        kept_.append(buf, std::size_t(n));
        total_ += std::uint64_t(n);
        if (kept_.size() > 2 * kKeptBytes) kept_.erase(0, kept_.size() - kKeptBytes);
    }
}

std::optional<HostPrinted> HostOutput::printed() {
    std::lock_guard lock(mutex_);
    drain_locked();
    if (total_ == 0) return std::nullopt;
    HostPrinted out;
    out.bytes = total_;
    out.cut = total_ > kKeptBytes;
    std::string_view last(kept_);
    if (last.size() > kKeptBytes) last.remove_prefix(last.size() - kKeptBytes);
    // Cut in the middle of a character, the first bytes kept are not one.
    out.text = visible_text(out.cut ? without_partial_start(last) : last);
    return out;
}

}  // namespace perflab
