// A hand-in's fingerprint as found in HANDINS, so a resumed batch regrades a
// hand-in a student (or a course script) replaced after it was graded.
#pragma once

#include <string>

#include "discovery.hpp"

namespace perflab::grader {

// Hex sha256 of the hand-in's file or archive; of a directory hand-in, of every
// regular file below it with its relative path. "" when it cannot be read.
std::string handin_sha256(const Handin& handin);

}  // namespace perflab::grader
