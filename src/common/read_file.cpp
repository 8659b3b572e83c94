#include "read_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perflab {

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string read_text_file(const std::string& path, const std::string& what) {
    auto text = read_file(path);
    if (!text) throw std::runtime_error(fmt::format("cannot read {} file '{}': check the path", what, path));
    return *text;
}

}  // namespace perflab
