// The images every call gets: ChaCha20 keystream (libsodium), so no call's input
// can be derived from an earlier one. By default the key is secret and new each
// run; `-s SEED` derives it from the seed instead, for a reproducible run (whose
// inputs a kernel could then predict: never for grading).
#pragma once

#include <sodium.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "defs.h"

namespace perflab {

class InputGenerator {
public:
    // A secret key, or one derived from `seed`.
    explicit InputGenerator(std::optional<unsigned> seed);

    // The next full-range pixels of the stream.
    void fill(std::span<pixel> image);
    bool secret() const { return secret_; }

private:
    std::array<unsigned char, crypto_stream_chacha20_ietf_KEYBYTES> key_{};
    std::uint64_t next_nonce_ = 0;
    bool secret_;
};

}  // namespace perflab
