#include "sha256.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include <stdexcept>

namespace perflab {

// libsodium's, already linked for the inputs' ChaCha20, rather than our own.
std::string sha256_hex(const std::string& bytes) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    std::string hex;
    for (unsigned char b : digest) hex += fmt::format("{:02x}", b);
    return hex;
}

}  // namespace perflab
