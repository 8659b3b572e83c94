// Finding the hand-ins in the directory course scripts and Autolab leave behind:
// ID.c, ID-kernels.c, ID/kernels.c, ID.tar, ID.tar.gz (or .tgz) with a kernels.c.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace perflab::grader {

struct Handin {
    std::string id;
    std::string path;     // the file, directory or archive it came from
    std::string problem;  // why it cannot be graded (two hand-ins for one ID); empty when usable
};

// One entry per ID, sorted by ID. Entries that are not hand-ins (README, dot
// files) are ignored. Throws std::runtime_error when `dir` cannot be read.
std::vector<Handin> discover_handins(const std::string& dir);

// Writes the hand-in's kernels.c to `dest`. Throws HandinError with a reason the
// student can act on: no kernels.c, two of them, a path escaping the archive.
struct HandinError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
void extract_kernels(const Handin& handin, const std::string& dest);

}  // namespace perflab::grader
