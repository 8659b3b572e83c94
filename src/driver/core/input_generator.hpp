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

    // One image's worth of the stream, which writes the same pixels wherever it is
    // asked to: the driver keeps its own record of an input and writes the shared
    // image straight from the stream, never by copying that record (see
    // Trial::prepare).
    class Draw {
    public:
        void into(std::span<pixel> image) const;

    private:
        friend class InputGenerator;
        Draw(const InputGenerator& from, std::uint64_t nonce) : from_(from), nonce_(nonce) {}
        const InputGenerator& from_;
        std::uint64_t nonce_;
    };

    // The next image of the stream, not yet written anywhere.
    Draw next() { return Draw(*this, next_nonce_++); }
    // The next full-range pixels of the stream.
    void fill(std::span<pixel> image) { next().into(image); }
    bool secret() const { return secret_; }

private:
    std::array<unsigned char, crypto_stream_chacha20_ietf_KEYBYTES> key_{};
    std::uint64_t next_nonce_ = 0;
    bool secret_;
};

}  // namespace perflab
