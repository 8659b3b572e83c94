#include "handin_digest.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "driver/core/build_state.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;

namespace {
bool read_bytes(const fs::path& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}
}  // namespace

std::string handin_sha256(const Handin& handin) {
    std::error_code ec;
    if (!fs::is_directory(handin.path, ec)) {
        std::string bytes;
        return read_bytes(handin.path, bytes) ? sha256_hex(bytes) : "";
    }
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(handin.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) files.push_back(it->path());
    if (ec) return "";
    std::sort(files.begin(), files.end());
    std::string listing;
    for (const auto& f : files) {
        std::string bytes;
        if (!read_bytes(f, bytes)) return "";
        listing += fs::relative(f, handin.path).string() + '\0' + sha256_hex(bytes) + '\n';
    }
    return sha256_hex(listing);
}

}  // namespace perflab::grader
