// A bounded number on the command line, for the driver, the grader and the probes.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <string>
#include <type_traits>

namespace perflab {

// CLI11's own Range calls a word "Value abc not in range 1 to 8192" and prints a
// double's bounds with six decimals ("256.000000 to 10000000.000000"); this one
// says what the value must be, with the bounds as they are written.
template <class T>
CLI::Validator in_range(T least, T most) {
    constexpr bool whole = std::is_integral_v<T>;
    return CLI::Validator(
        [least, most](std::string& input) -> std::string {
            T value{};
            if (CLI::detail::lexical_cast(input, value) && !(value < least) && !(most < value)) return "";
            return fmt::format("{} is not {} from {} to {}", input, whole ? "a whole number" : "a number", least, most);
        },
        fmt::format("{} in [{} - {}]", whole ? "INT" : "FLOAT", least, most));
}

}  // namespace perflab
