#include "input_generator.hpp"

#include <cstring>
#include <stdexcept>

namespace perflab {

InputGenerator::InputGenerator(std::optional<unsigned> seed) : secret_(!seed) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot initialise: no source of randomness");
    if (seed) {
        const unsigned char context[] = "perflab -s seed";
        crypto_generichash(key_.data(), key_.size(), reinterpret_cast<const unsigned char*>(&*seed), sizeof *seed,
                           context, sizeof context);
    } else {
        crypto_stream_chacha20_ietf_keygen(key_.data());
    }
}

void InputGenerator::Draw::into(std::span<pixel> image) const {
    // One nonce per image: the stream never repeats within a run.
    std::array<unsigned char, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
    std::memcpy(nonce.data(), &nonce_, sizeof nonce_);
    crypto_stream_chacha20_ietf(reinterpret_cast<unsigned char*>(image.data()), image.size_bytes(), nonce.data(),
                                from_.key_.data());
}

}  // namespace perflab
