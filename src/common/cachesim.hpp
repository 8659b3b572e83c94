// The course's cache model made executable: S = 2^s sets of E lines of B = 2^b
// bytes, exact LRU replacement, write-back and write-allocate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

struct CacheGeometry {
    // 64-bit like the command line's numbers, so validate() sees any value given.
    std::uint64_t s = 0; // set-index bits
    std::uint64_t E = 1; // lines per set
    std::uint64_t b = 0; // block-offset bits

    // Largest s accepted: the per-set state is allocated up front, so 2^s bounds
    // memory (2^24 sets is 192 MiB) - far past any cache the course asks about.
    static constexpr std::uint64_t max_s = 24;
    static constexpr std::uint64_t max_E = std::uint64_t{1} << 31;

    // Empty when the geometry is usable, else one sentence naming the bad value.
    std::string validate() const;
};

enum class AccessKind { load, store, modify };

// What one reference to one block did. An access yields one per block it touches,
// and a modify yields them twice: first for its load part, then its store part.
enum class BlockOutcome { hit, miss, miss_eviction };

struct AccessOutcome {
    std::uint32_t hits = 0;
    std::uint32_t misses = 0;
    std::uint32_t evictions = 0;
};

class CacheSim {
public:
    // Throws std::invalid_argument with validate()'s message for a bad geometry.
    explicit CacheSim(const CacheGeometry& geometry);

    // Simulates the bytes [addr, addr + size); size 0 counts as 1. on_block sees
    // each block reference's outcome in order (the -v listing is built from it).
    template <class OnBlock>
    AccessOutcome access(std::uint64_t addr, std::uint64_t size, AccessKind kind,
                         OnBlock&& on_block);
    AccessOutcome access(std::uint64_t addr, std::uint64_t size, AccessKind kind) {
        return access(addr, size, kind, [](BlockOutcome) {});
    }

    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return misses_; }
    std::uint64_t evictions() const { return evictions_; }
    // Write-back: a dirty line costs its whole block when it leaves the cache.
    std::uint64_t dirty_bytes_evicted() const { return dirty_evictions_ << geometry_.b; }
    std::uint64_t dirty_bytes_active() const { return dirty_lines_ << geometry_.b; }
    const CacheGeometry& geometry() const { return geometry_; }

private:
    static constexpr std::uint32_t none = UINT32_MAX;

    struct Line {
        std::uint64_t block; // address >> b: identifies the line cache-wide
        std::uint32_t newer; // towards the set's most recently used line
        std::uint32_t older; // towards its least recently used line
        bool dirty;
    };
    struct Set {
        std::uint32_t mru = none;
        std::uint32_t lru = none;
        std::uint64_t used = 0;
    };
    // Open-addressing slot of the block -> line index; line == none marks it free.
    struct Slot {
        std::uint64_t block;
        std::uint32_t line;
    };

    BlockOutcome reference(std::uint64_t block, bool write);
    std::uint32_t find(std::uint64_t block) const;
    void insert(std::uint64_t block, std::uint32_t line);
    void erase(std::uint64_t block);
    void grow_table();
    std::size_t home(std::uint64_t block) const;
    void unlink(Set& set, std::uint32_t line);
    void push_mru(Set& set, std::uint32_t line);

    CacheGeometry geometry_;
    std::uint64_t set_mask_;
    std::vector<Set> sets_;
    // Lines are created on first use and reused in place on eviction, so memory
    // follows the blocks a trace touches rather than S*E.
    std::vector<Line> lines_;
    std::vector<Slot> table_;
    unsigned table_bits_ = 0;

    std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
    std::uint64_t dirty_evictions_ = 0, dirty_lines_ = 0;
};

template <class OnBlock>
AccessOutcome CacheSim::access(std::uint64_t addr, std::uint64_t size, AccessKind kind,
                               OnBlock&& on_block) {
    const std::uint64_t first = addr >> geometry_.b;
    const std::uint64_t end = size > 1 && addr + (size - 1) < addr
                                  ? UINT64_MAX // the access wraps: clamp to the top
                                  : addr + (size > 0 ? size - 1 : 0);
    const std::uint64_t last = end >> geometry_.b;
    AccessOutcome outcome;
    auto pass = [&](bool write) {
        for (std::uint64_t block = first;; ++block) {
            const BlockOutcome o = reference(block, write);
            if (o == BlockOutcome::hit) {
                ++outcome.hits;
            } else {
                ++outcome.misses;
                outcome.evictions += o == BlockOutcome::miss_eviction;
            }
            on_block(o);
            if (block == last) break;
        }
    };
    pass(kind == AccessKind::store);
    if (kind == AccessKind::modify) pass(true);
    return outcome;
}

} // namespace perflab
