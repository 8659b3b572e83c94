// Cutting a byte stream into lines as it arrives, in chunks of any size: the
// same reader serves a file read in large blocks and a running program's pipe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace perflab {

// on_line(text, cut) gets each line without its '\n'. A line of max_line bytes or
// more arrives once, as its first max_line bytes with cut set, and the rest of it
// is dropped: a stream with no newlines cannot grow the reader without bound.
template <class OnLine>
class LineReader {
public:
    LineReader(std::size_t max_line, OnLine on_line) : max_line_(max_line), on_line_(std::move(on_line)) {}

    void feed(std::string_view chunk) {
        while (!chunk.empty()) {
            const std::size_t newline = chunk.find('\n');
            const std::string_view piece = chunk.substr(0, newline);
            if (newline == std::string_view::npos) {
                hold(piece);
                return;
            }
            chunk.remove_prefix(newline + 1);
            if (cutting_) {
                cutting_ = false;  // the tail of a line already given
            } else if (held_.empty()) {
                line(piece);  // most lines: no copy
            } else {
                hold(piece);
                if (!cutting_) line(held_);
                cutting_ = false;
            }
            held_.clear();
        }
    }

    // The stream ended: its last line may lack a newline.
    void finish() {
        if (!cutting_ && !held_.empty()) line(held_);
        held_.clear();
        cutting_ = false;
    }

private:
    void line(std::string_view text) {
        if (text.size() >= max_line_) on_line_(text.substr(0, max_line_), true);
        else on_line_(text, false);
    }

    void hold(std::string_view piece) {
        if (cutting_) return;
        held_.append(piece);
        if (held_.size() < max_line_) return;
        line(held_);
        held_.clear();
        cutting_ = true;
    }

    std::size_t max_line_;
    OnLine on_line_;
    std::string held_;
    bool cutting_ = false;
};

}  // namespace perflab
