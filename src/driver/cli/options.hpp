// The command line: the classic flags with their classic meaning, and GNU long
// options for everything perflab adds, parsed into the request (core/options.hpp).
#pragma once

#include <optional>
#include <string>

#include "common/exit_codes.hpp"
#include "driver/core/options.hpp"

namespace perflab {

struct ParseOutcome {
    std::optional<Options> options;  // absent: exit with `exit_code`
    int exit_code = 0;
};

// Prints usage, help, version or a one-line error itself (the only output the
// option layer makes) and says how to exit when it did.
ParseOutcome parse_options(int argc, char** argv);

std::string version_string();

}  // namespace perflab
