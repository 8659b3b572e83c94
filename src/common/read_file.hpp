// Reading a whole file, in one place.
#pragma once

#include <optional>
#include <string>

namespace perflab {

// The file's bytes as they are; nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::string& path);

// The whole file; throws std::runtime_error "cannot read <what> file 'PATH'..." when it cannot.
std::string read_text_file(const std::string& path, const std::string& what);

}  // namespace perflab
