// Text from a student's file (descriptions, team names) is bytes: what every report
// prints is the same valid UTF-8, whichever format it is in.
#pragma once

#include <string>
#include <string_view>

namespace perflab {

// `bytes` with each sequence that is not UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view bytes);

// `bytes` without a multi-byte character that its end cuts short (text cut at a
// byte limit), so the cut shows no stray byte.
std::string_view without_cut_character(std::string_view bytes);

// The same for text whose start was cut off (the last bytes of a longer text).
std::string_view without_partial_start(std::string_view bytes);

}  // namespace perflab
