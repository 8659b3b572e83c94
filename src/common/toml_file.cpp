#include "toml_file.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace perflab {

toml::table parse_toml(const std::string& text, const std::string& source_name, const std::string& remedy) {
    try {
        return toml::parse(text, source_name);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error(
            fmt::format("{}:{}: {}: {}", source_name, e.source().begin.line, e.description(), remedy));
    }
}

}  // namespace perflab
