// Finding the hand-ins in the directory course scripts and Autolab leave behind:
// ID.c, ID-kernels.c, ID/ (holding kernels.c, TEAM-kernels.c or an archive), ID.tar,
// ID.tar.gz (or .tgz) with a kernels.c or TEAM-kernels.c.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace perflab::grader {

struct Handin {
    std::string id;
    std::string path;     // the file, directory or archive it came from
    std::string problem;  // why it cannot be graded (two hand-ins for one ID); empty when usable
};

// One entry per ID, sorted by ID. Entries that are not hand-ins (README, a grader
// output directory: the batch's own `out_dir` by its path, another batch's by its
// contents) are skipped with one line each on `notes`; dot files silently.
// Throws std::runtime_error when `dir` cannot be read, is `out_dir` itself, or holds
// no hand-in.
std::vector<Handin> discover_handins(const std::string& dir, const std::string& out_dir = "",
                                     std::FILE* notes = stderr);

// The one hand-in Autolab or Gradescope uploaded: a file (kernels.c, TEAM-kernels.c,
// or an archive under any name) or a directory holding one.
Handin single_handin(const std::string& path);

// Writes the hand-in's kernels.c to `dest`. Throws HandinError with a reason the
// student can act on: no kernels.c, two of them, a path escaping the archive.
struct HandinError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
void extract_kernels(const Handin& handin, const std::string& dest);

}  // namespace perflab::grader
