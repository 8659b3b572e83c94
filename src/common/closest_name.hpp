// The known name a mistyped one most likely meant, for "did you mean grade?".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perflab {

// The name nearest `typed` by edits (insert, delete, change, swap two neighbours),
// when it is near enough to be a typo: at most 2 edits and fewer than half its letters.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& names);

}  // namespace perflab
