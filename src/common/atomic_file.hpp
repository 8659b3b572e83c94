// Whole-file writes that a crash cannot tear: a reader sees the old file or the
// new one, never half of it.
#pragma once

#include <optional>
#include <string>

namespace perflab {

// Writes `text` to `path` ("-" is stdout) through a temporary file in the same
// directory, fsync and rename. Throws std::runtime_error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

// The same, making the file's directory first: the tools' outputs default to build/,
// and any output named on their command line is treated alike.
void write_file_making_directory(const std::string& path, const std::string& text);

// Why write_file_atomically(path, ...) would fail now, found by doing what it does
// (creating its temporary file) rather than by asking for permissions, which root
// is granted even where no file can be made (/proc, a read-only mount).
// std::nullopt when the write would succeed.
std::optional<std::string> why_unwritable(const std::string& path);

}  // namespace perflab
