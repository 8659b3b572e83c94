// Progress of a batch: a bar with done / running / pending / failed and an ETA on a
// terminal, plain lines in a log. A local batch and a Slurm batch show the same.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace perflab::grader {

class Progress {
public:
    Progress(std::FILE* out, std::size_t total);
    void done(const std::string& id, const std::string& summary);
    // Hand-ins being graded now, waiting, and whose grading failed at least once
    // (a Slurm task that failed and is retried); shown beside the done count.
    void queue(std::size_t running, std::size_t pending, std::size_t failed);
    void note(const std::string& line);
    void finish();

private:
    std::FILE* out_;
    bool terminal_;
    void draw(const std::string& last);
    std::size_t total_, count_ = 0;
    std::size_t running_ = 0, pending_ = 0, failed_ = 0;
    bool queue_known_ = false;
    std::string last_;
    std::chrono::steady_clock::time_point last_queue_line_{};
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace perflab::grader
