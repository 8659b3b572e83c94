#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "common/untrusted_text.hpp"

namespace perflab::grader {

Progress::Progress(std::FILE* out, std::size_t total) : out_(out), terminal_(isatty(fileno(out))), total_(total) {}

void Progress::note(const std::string& line) {
    // Every line here may carry a hand-in's text (its id, its reason): the
    // terminal sees none of its control characters.
    fmt::print(out_, "{}{}\n", terminal_ ? "\r\033[K" : "", visible_line(line));
    std::fflush(out_);
}

void Progress::draw(const std::string& last) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string eta = "ETA --";
    if (count_ > 0) {
        long s = long(elapsed / double(count_) * double(total_ - count_));
        eta = fmt::format("ETA {}m{:02}s", s / 60, s % 60);
    }
    std::string queue = queue_known_ ? fmt::format(", {} running, {} pending, {} failed", running_, pending_, failed_) : "";
    constexpr std::size_t width = 30;
    std::size_t filled = total_ ? width * count_ / total_ : width;
    fmt::print(out_, "\r\033[K[{}{}] {}/{} done{}  {}{}{}", std::string(filled, '#'), std::string(width - filled, '.'),
               count_, total_, queue, eta, last.empty() ? "" : "  ", last);
    std::fflush(out_);
}

void Progress::done(const std::string& id, const std::string& summary) {
    ++count_;
    if (queue_known_ && pending_ + running_ > 0) {
        // The hand-in just done was running (or, on Slurm, finished between two polls).
        if (running_ > 0) --running_;
        else --pending_;
    }
    last_ = visible_line(id + ": " + summary);
    if (!terminal_) {
        fmt::print(out_, "[{}/{}] {}\n", count_, total_, last_);
        std::fflush(out_);
        return;
    }
    draw(last_);
}

void Progress::queue(std::size_t running, std::size_t pending, std::size_t failed) {
    bool changed = !queue_known_ || running != running_ || pending != pending_ || failed != failed_;
    bool failure = queue_known_ && failed != failed_;
    running_ = running;
    pending_ = pending;
    failed_ = failed;
    queue_known_ = true;
    if (!changed) return;
    if (terminal_) {
        draw(last_);
    } else if (failure || std::chrono::steady_clock::now() - last_queue_line_ > std::chrono::seconds(30) ||
               last_queue_line_ == std::chrono::steady_clock::time_point{}) {
        // In a log, a line per change would drown the graded ones: a new failure
        // at once, the rest at most every 30 s.
        last_queue_line_ = std::chrono::steady_clock::now();
        fmt::print(out_, "[{}/{}] {} running, {} pending, {} failed\n", count_, total_, running, pending, failed);
        std::fflush(out_);
    }
}

void Progress::finish() {
    if (terminal_ && count_ > 0) fmt::print(out_, "\n");
    std::fflush(out_);
}

}  // namespace perflab::grader
