// A count with its noun, as messages print it: "1 hand-in", "3 hand-ins".
#pragma once

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace perflab {

// Only for nouns whose plural adds an "s".
template <class Count>
std::string counted(Count n, std::string_view noun) {
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace perflab
