// What the student's kernel host prints (its stdout and stderr) arrives on a pipe of
// its own, never on the driver's streams: the driver's messages and reports stay the
// driver's, and whatever a kernels file prints is shown apart, labelled as its
// output. A thread drains the pipe as the host writes, so a host that prints much is
// never blocked on a full pipe (which would read as a slow or stuck kernel); only the
// last kKeptBytes are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace perflab {

struct HostPrinted;  // results.hpp

class HostOutput {
public:
    static constexpr std::size_t kKeptBytes = 4096;

    // Throws HostError when the pipe or its reader cannot be made.
    HostOutput();
    ~HostOutput();
    HostOutput(const HostOutput&) = delete;
    HostOutput& operator=(const HostOutput&) = delete;

    // What a host's fds 1 and 2 become (close-on-exec here: a spawn clears that in its
    // child). One pipe for every host started with it, restarts included.
    int write_fd() const { return write_fd_; }

    // Everything printed so far (what is still in the pipe included), made visible;
    // nothing when the host printed nothing.
    std::optional<HostPrinted> printed();

private:
    void drain_locked();
    void read_until_stopped();

    int read_fd_ = -1, write_fd_ = -1, stop_fd_ = -1;
    std::mutex mutex_;
    std::string kept_;  // the last bytes read, up to twice kKeptBytes between trims
    std::uint64_t total_ = 0;
    std::thread reader_;
};

}  // namespace perflab
