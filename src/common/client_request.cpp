#include "client_request.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perflab {

// valgrind.h, amd64: rolq $3, $13, $61, $51 of %rdi.
constexpr std::string_view kPreamble{"\x48\xc1\xc7\x03\x48\xc1\xc7\x0d\x48\xc1\xc7\x3d\x48\xc1\xc7\x33", 16};

std::optional<std::size_t> find_client_request(std::string_view bytes) {
    auto at = bytes.find(kPreamble);
    if (at == std::string_view::npos) return std::nullopt;
    return at;
}

std::optional<std::size_t> find_client_request_in_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    if (!in || !(bytes << in.rdbuf())) throw std::runtime_error("cannot read '" + path + "' to check it for valgrind client requests");
    return find_client_request(bytes.str());
}

}  // namespace perflab
