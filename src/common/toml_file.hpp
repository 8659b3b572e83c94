// Reading the instructor's TOML files (baselines, policies) with errors that name
// the file and the line, in one place.
#pragma once

#include <string>
#include <toml++/toml.h>

#include "common/read_file.hpp"  // read_text_file, for the TOML files

namespace perflab {

// Throws std::runtime_error "FILE:LINE: what: REMEDY" on a syntax error; the
// remedy says what the file should hold, since the wrong file is the usual cause.
toml::table parse_toml(const std::string& text, const std::string& source_name, const std::string& remedy);

}  // namespace perflab
