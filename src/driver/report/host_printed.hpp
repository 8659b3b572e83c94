// What the student's kernels file printed, as each report shows it: apart from the
// driver's own lines, labelled as the file's, every line marked so that none can pass
// for the driver's (a printed "Score: 100" or a fake verdict stays visibly quoted).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "driver/core/results.hpp"

namespace perflab {

// The labelled block for a terminal or a feedback file; empty when nothing was printed.
std::string host_printed_text(const std::optional<HostPrinted>& printed);

// `driver_output` (what a driver printed, both streams) up to where the block of what
// kernels.c printed starts: the driver's own words.
std::string_view before_host_printed(std::string_view driver_output);

// The JSON report's "host_output": {text, bytes, cut}, or null when nothing was printed.
nlohmann::json host_printed_json(const std::optional<HostPrinted>& printed);

}  // namespace perflab
