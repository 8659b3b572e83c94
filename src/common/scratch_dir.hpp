// A private temporary directory that is gone when its owner is, whichever way the
// work ends: the one way the driver, grader and tools keep scratch files.
#pragma once

#include <string>

namespace perflab {

class ScratchDir {
public:
    // A new directory under $TMPDIR (or /tmp) named `prefix`-PID-XXXXXX, after
    // removing those of the same prefix whose owner died without cleaning up.
    // Throws std::runtime_error naming the remedy when none can be made.
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

}  // namespace perflab
