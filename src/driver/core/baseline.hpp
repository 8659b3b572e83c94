// Baseline CPEs: measured in the same run from the driver's own oracle (the
// default, valid on any machine), or fixed in a TOML file an instructor writes
// once on the grading host with `./driver --calibrate > FILE`.
#pragma once

#include <map>
#include <string>

#include "kernel.hpp"

namespace perflab {

struct BaselineFile {
    std::map<int, double> rotate, smooth;  // dim -> CPE
    std::string source;
    const std::map<int, double>& of(Kernel k) const { return k == Kernel::rotate ? rotate : smooth; }
};

// Throws std::runtime_error naming the file and the problem.
BaselineFile load_baseline(const std::string& path);
BaselineFile parse_baseline(const std::string& toml_text, const std::string& source_name);
std::string baseline_to_toml(const BaselineFile& baseline, const std::string& comment);

}  // namespace perflab
