#include "cachesim.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace perflab {

std::string CacheGeometry::validate() const {
    if (s > max_s)
        return fmt::format("-s {} asks for 2^{} sets; at most -s {} is supported", s, s,
                           max_s);
    if (b > 63) return fmt::format("-b {} is too large; B = 2^b must fit in 64 bits", b);
    if (s + b > 64)
        return fmt::format("-s {} -b {}: s+b must be at most 64 address bits", s, b);
    if (E == 0) return "-E must be at least 1 line per set";
    if (E > max_E) return fmt::format("-E {} is too large; at most 2^31 lines per set", E);
    return {};
}

CacheSim::CacheSim(const CacheGeometry& geometry)
    : geometry_(geometry),
      set_mask_((std::uint64_t{1} << geometry.s) - 1) {
    if (auto problem = geometry.validate(); !problem.empty())
        throw std::invalid_argument(problem);
    sets_.resize(std::size_t{1} << geometry.s);
    table_bits_ = 10;
    table_.assign(std::size_t{1} << table_bits_, Slot{0, none});
}

// Fibonacci hashing: sequential block numbers spread over the whole table.
std::size_t CacheSim::home(std::uint64_t block) const {
    return static_cast<std::size_t>((block * 0x9E3779B97F4A7C15ull) >> (64 - table_bits_));
}

std::uint32_t CacheSim::find(std::uint64_t block) const {
    const std::size_t mask = table_.size() - 1;
    for (std::size_t i = home(block);; i = (i + 1) & mask) {
        const Slot& slot = table_[i];
        if (slot.line == none || slot.block == block) return slot.line;
    }
}

void CacheSim::insert(std::uint64_t block, std::uint32_t line) {
    const std::size_t mask = table_.size() - 1;
    std::size_t i = home(block);
    while (table_[i].line != none) i = (i + 1) & mask;
    table_[i] = Slot{block, line};
}

// Backward-shift deletion keeps linear probing free of tombstones, so lookups stay
// short however many evictions a long trace makes.
void CacheSim::erase(std::uint64_t block) {
    const std::size_t mask = table_.size() - 1;
    std::size_t hole = home(block);
    // No free slot lies between a block's home and its entry, so the first match is it.
    while (table_[hole].block != block) hole = (hole + 1) & mask;
    for (std::size_t i = (hole + 1) & mask; table_[i].line != none; i = (i + 1) & mask) {
        // An entry may fill the hole only if its probe run started at or before it.
        const std::size_t h = home(table_[i].block);
        if (((i - h) & mask) >= ((i - hole) & mask)) {
            table_[hole] = table_[i];
            hole = i;
        }
    }
    table_[hole].line = none;
}

void CacheSim::grow_table() {
    ++table_bits_;
    table_.assign(std::size_t{1} << table_bits_, Slot{0, none});
    for (std::uint32_t line = 0; line < lines_.size(); ++line)
        insert(lines_[line].block, line);
}

void CacheSim::unlink(Set& set, std::uint32_t line) {
    Line& l = lines_[line];
    (l.newer == none ? set.mru : lines_[l.newer].older) = l.older;
    (l.older == none ? set.lru : lines_[l.older].newer) = l.newer;
}

void CacheSim::push_mru(Set& set, std::uint32_t line) {
    Line& l = lines_[line];
    l.newer = none;
    l.older = set.mru;
    (set.mru == none ? set.lru : lines_[set.mru].newer) = line;
    set.mru = line;
}

BlockOutcome CacheSim::reference(std::uint64_t block, bool write) {
    Set& set = sets_[block & set_mask_];
    std::uint32_t line = find(block);
    BlockOutcome outcome = BlockOutcome::hit;
    if (line != none) {
        ++hits_;
        if (set.mru != line) {
            unlink(set, line);
            push_mru(set, line);
        }
    } else {
        ++misses_;
        outcome = BlockOutcome::miss;
        if (set.used < geometry_.E) {
            line = static_cast<std::uint32_t>(lines_.size());
            lines_.push_back(Line{block, none, none, false});
            ++set.used;
            // At most a quarter full, probe runs stay a slot or two long.
            if (lines_.size() * 4 > table_.size())
                grow_table(); // indexes every line, the new one included
            else
                insert(block, line);
        } else {
            outcome = BlockOutcome::miss_eviction;
            ++evictions_;
            line = set.lru;
            Line& victim = lines_[line];
            if (victim.dirty) {
                ++dirty_evictions_;
                --dirty_lines_;
            }
            erase(victim.block);
            unlink(set, line);
            victim.block = block;
            victim.dirty = false;
            insert(block, line);
        }
        push_mru(set, line);
    }
    if (write && !lines_[line].dirty) {
        lines_[line].dirty = true;
        ++dirty_lines_;
    }
    return outcome;
}

} // namespace perflab
