// Whole-file writes that a crash cannot tear: a reader sees the old file or the
// new one, never half of it.
#pragma once

#include <string>

namespace perflab {

// Writes `text` to `path` ("-" is stdout) through a temporary file in the same
// directory, fsync and rename. Throws std::runtime_error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace perflab
