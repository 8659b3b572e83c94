// One grader per output directory: two at once would grade every hand-in twice
// and time each other's runs on the same CPUs.
#pragma once

#include <string>

namespace perflab::grader {

// Holds an exclusive flock on DIR/.lock for its lifetime (the kernel drops it when
// the grader dies, even by kill -9, so a stale lock cannot outlive its holder).
// Throws std::runtime_error naming the holder's PID when another grader has it.
class BatchLock {
public:
    explicit BatchLock(const std::string& out_dir);
    ~BatchLock();
    BatchLock(const BatchLock&) = delete;
    BatchLock& operator=(const BatchLock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace perflab::grader
