// Progress of a batch: a bar with count and ETA on a terminal, plain lines in a log.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace perflab::grader {

class Progress {
public:
    Progress(std::FILE* out, std::size_t total);
    void done(const std::string& id, const std::string& summary);
    void note(const std::string& line);
    void finish();

private:
    std::FILE* out_;
    bool terminal_;
    std::size_t total_, count_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace perflab::grader
