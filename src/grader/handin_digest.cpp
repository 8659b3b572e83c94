#include "handin_digest.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/read_file.hpp"
#include "common/sha256.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;

std::string handin_sha256(const Handin& handin) {
    std::error_code ec;
    if (!fs::is_directory(handin.path, ec)) {
        const auto bytes = read_file(handin.path);
        return bytes ? sha256_hex(*bytes) : "";
    }
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(handin.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) files.push_back(it->path());
    if (ec) return "";
    std::sort(files.begin(), files.end());
    std::string listing;
    for (const auto& f : files) {
        const auto bytes = read_file(f);
        if (!bytes) return "";
        listing += fs::relative(f, handin.path).string() + '\0' + sha256_hex(*bytes) + '\n';
    }
    return sha256_hex(listing);
}

}  // namespace perflab::grader
