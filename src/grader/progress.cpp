#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace perflab::grader {

Progress::Progress(std::FILE* out, std::size_t total) : out_(out), terminal_(isatty(fileno(out))), total_(total) {}

void Progress::note(const std::string& line) {
    fmt::print(out_, "{}{}\n", terminal_ ? "\r\033[K" : "", line);
    std::fflush(out_);
}

void Progress::done(const std::string& id, const std::string& summary) {
    ++count_;
    if (!terminal_) {
        fmt::print(out_, "[{}/{}] {}: {}\n", count_, total_, id, summary);
        std::fflush(out_);
        return;
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    long eta = long(elapsed / double(count_) * double(total_ - count_));
    constexpr std::size_t width = 30;
    std::size_t filled = total_ ? width * count_ / total_ : width;
    fmt::print(out_, "\r\033[K[{}{}] {}/{}  ETA {}m{:02}s  {}: {}", std::string(filled, '#'),
               std::string(width - filled, '.'), count_, total_, eta / 60, eta % 60, id, summary);
    std::fflush(out_);
}

void Progress::finish() {
    if (terminal_ && count_ > 0) fmt::print(out_, "\n");
    std::fflush(out_);
}

}  // namespace perflab::grader
