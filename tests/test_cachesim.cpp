// cachesim: the cache model on traces worked out by hand, a randomised check
// against a reference model written for clarity, real programs traced under
// valgrind, and the command line through the built binary.
#include "common/cachesim.hpp"
#include "harness.hpp"
#include "common/lackey_trace.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace perflab;

namespace {

using Outcomes = std::vector<BlockOutcome>;
constexpr auto H = BlockOutcome::hit;
constexpr auto M = BlockOutcome::miss;
constexpr auto ME = BlockOutcome::miss_eviction;

// Runs the accesses and returns every block outcome in order.
Outcomes run_accesses(CacheSim& sim,
                      const std::vector<std::tuple<AccessKind, std::uint64_t, std::uint64_t>>& accesses) {
    Outcomes seen;
    for (const auto& [kind, addr, size] : accesses)
        sim.access(addr, size, kind, [&](BlockOutcome o) { seen.push_back(o); });
    return seen;
}

constexpr auto L = AccessKind::load;
constexpr auto S = AccessKind::store;
constexpr auto Mod = AccessKind::modify;

} // namespace

TEST_CASE("direct-mapped cache thrashes on two blocks that share a set", "[cachesim]") {
    // s=2 E=1 b=4: 4 sets of one 16-byte line. 0x00 is block 0 and 0x40 block 4;
    // both map to set 0 (block mod 4), so each access evicts the other: miss, then
    // three misses with eviction.
    CacheSim sim({2, 1, 4});
    CHECK(run_accesses(sim, {{L, 0x00, 1}, {L, 0x40, 1}, {L, 0x00, 1}, {L, 0x40, 1}}) ==
          Outcomes{M, ME, ME, ME});
    CHECK(sim.hits() == 0);
    CHECK(sim.misses() == 4);
    CHECK(sim.evictions() == 3);
}

TEST_CASE("2-way LRU keeps the block that a direct-mapped cache of equal size evicts",
          "[cachesim]") {
    // Blocks 0, 4 and 8 (addresses 0x00, 0x40, 0x80 with 16-byte blocks).
    const std::vector<std::tuple<AccessKind, std::uint64_t, std::uint64_t>> trace = {
        {L, 0x00, 1}, {L, 0x40, 1}, {L, 0x00, 1}, {L, 0x80, 1}, {L, 0x00, 1}, {L, 0x40, 1}};

    // s=1 E=2 b=4: all three blocks are even, so all go to set 0 of two lines.
    // 0 miss; 4 miss; 0 hit (now 4 is LRU); 8 evicts 4; 0 hit; 4 evicts 8 (LRU).
    CacheSim two_way({1, 2, 4});
    CHECK(run_accesses(two_way, trace) == Outcomes{M, M, H, ME, H, ME});
    CHECK(two_way.hits() == 2);
    CHECK(two_way.misses() == 4);
    CHECK(two_way.evictions() == 2);

    // s=2 E=1 b=4, the same 64 bytes: blocks 0, 4, 8 all map to set 0 and every
    // access after the first evicts.
    CacheSim direct({2, 1, 4});
    CHECK(run_accesses(direct, trace) == Outcomes{M, ME, ME, ME, ME, ME});
}

TEST_CASE("fully associative cache replaces the least recently used line", "[cachesim]") {
    // s=0 E=3 b=2: one set of three 4-byte lines; blocks are addr/4.
    // 0 m, 1 m, 2 m (full; LRU order oldest first: 0 1 2); 0 hit (1 2 0);
    // 3 evicts 1 (2 0 3); 1 evicts 2 (0 3 1); 2 evicts 0 (3 1 2);
    // 0 evicts 3 (1 2 0); 1 hit.
    CacheSim sim({0, 3, 2});
    CHECK(run_accesses(sim, {{L, 0x0, 1}, {L, 0x4, 1}, {L, 0x8, 1}, {L, 0x0, 1}, {L, 0xC, 1},
                             {L, 0x4, 1}, {L, 0x8, 1}, {L, 0x0, 1}, {L, 0x4, 1}}) ==
          Outcomes{M, M, M, H, ME, ME, ME, ME, H});
    CHECK(sim.hits() == 2);
    CHECK(sim.misses() == 7);
    CHECK(sim.evictions() == 4);
}

TEST_CASE("a modify is a load then a store: miss then hit on a cold cache", "[cachesim]") {
    // s=4 E=1 b=4: M 0x20 misses on the load part and hits on the store part, and
    // leaves its 16-byte line dirty.
    CacheSim sim({4, 1, 4});
    const AccessOutcome outcome = sim.access(0x20, 1, AccessKind::modify);
    CHECK(outcome.hits == 1);
    CHECK(outcome.misses == 1);
    CHECK(outcome.evictions == 0);
    CHECK(sim.dirty_bytes_active() == 16);
    CHECK(run_accesses(sim, {{Mod, 0x24, 4}}) == Outcomes{H, H});
}

TEST_CASE("an access straddling blocks references each block it touches", "[cachesim]") {
    // s=4 E=1 b=4. L 0xE,4 covers bytes 0xE..0x11: blocks 0 and 1, both miss.
    // L 0x10,1 is block 1: hit. M 0x1F,2 covers 0x1F..0x20: blocks 1 and 2; the
    // load part hits 1 and misses 2, the store part then hits both.
    CacheSim sim({4, 1, 4});
    CHECK(run_accesses(sim, {{L, 0xE, 4}}) == Outcomes{M, M});
    CHECK(run_accesses(sim, {{L, 0x10, 1}}) == Outcomes{H});
    CHECK(run_accesses(sim, {{Mod, 0x1F, 2}}) == Outcomes{H, M, H, H});
    CHECK(sim.hits() == 4);
    CHECK(sim.misses() == 3);
    // The store part dirtied blocks 1 and 2.
    CHECK(sim.dirty_bytes_active() == 32);

    // An 8-byte load with 1-byte blocks touches 8 blocks.
    CacheSim bytes({3, 1, 0});
    CHECK(bytes.access(0x100, 8, AccessKind::load).misses == 8);
}

TEST_CASE("write-back counts a dirty line's block when it is evicted", "[cachesim]") {
    // s=0 E=1 b=3: a single 8-byte line.
    // S 0: miss, line dirty (active 8). L 8: evicts dirty block 0 (evicted 8,
    // active 0). L 0: evicts clean block 1 (evicted stays 8). S 0x10: evicts clean
    // block 0, dirty again (active 8). S 0x11: hit on the already dirty line.
    CacheSim sim({0, 1, 3});
    CHECK(run_accesses(sim, {{S, 0x0, 1}}) == Outcomes{M});
    CHECK(sim.dirty_bytes_active() == 8);
    CHECK(run_accesses(sim, {{L, 0x8, 1}, {L, 0x0, 1}, {S, 0x10, 1}, {S, 0x11, 1}}) ==
          Outcomes{ME, ME, ME, H});
    CHECK(sim.dirty_bytes_evicted() == 8);
    CHECK(sim.dirty_bytes_active() == 8);
    CHECK(sim.evictions() == 3);
}

TEST_CASE("bad geometries are refused", "[cachesim]") {
    CHECK_FALSE(CacheGeometry{0, 0, 4}.validate().empty());  // E = 0
    CHECK_FALSE(CacheGeometry{20, 1, 45}.validate().empty()); // s + b > 64
    CHECK_FALSE(CacheGeometry{30, 1, 4}.validate().empty());  // 2^30 sets
    CHECK(CacheGeometry{0, 1, 63}.validate().empty());
    CHECK_THROWS_AS(CacheSim(CacheGeometry{1, 0, 1}), std::invalid_argument);
}

namespace {

// The model as the course states it, with no attention to speed: each set is a
// list of block numbers, most recently used first.
class ReferenceCache {
public:
    explicit ReferenceCache(CacheGeometry g) : g_(g), sets_(std::size_t{1} << g.s) {}

    void access(std::uint64_t addr, std::uint64_t size, AccessKind kind, Outcomes& seen) {
        const std::uint64_t first = addr >> g_.b, last = (addr + size - 1) >> g_.b;
        for (int pass = 0; pass < (kind == AccessKind::modify ? 2 : 1); ++pass) {
            const bool write = kind == AccessKind::store || pass == 1;
            for (std::uint64_t block = first; block <= last; ++block)
                seen.push_back(touch(block, write));
        }
    }

    std::uint64_t dirty_evicted = 0;
    std::uint64_t dirty_active() const {
        std::uint64_t bytes = 0;
        for (const auto& set : sets_)
            for (const auto& line : set) bytes += line.dirty ? std::uint64_t{1} << g_.b : 0;
        return bytes;
    }

private:
    struct Line {
        std::uint64_t block;
        bool dirty;
    };

    BlockOutcome touch(std::uint64_t block, bool write) {
        auto& set = sets_[block % sets_.size()];
        auto it = std::find_if(set.begin(), set.end(), [&](const Line& l) { return l.block == block; });
        BlockOutcome outcome = BlockOutcome::hit;
        Line line{block, false};
        if (it != set.end()) {
            line = *it;
            set.erase(it);
        } else if (set.size() < g_.E) {
            outcome = BlockOutcome::miss;
        } else {
            outcome = BlockOutcome::miss_eviction;
            if (set.back().dirty) dirty_evicted += std::uint64_t{1} << g_.b;
            set.pop_back();
        }
        line.dirty = line.dirty || write;
        set.insert(set.begin(), line);
        return outcome;
    }

    CacheGeometry g_;
    std::vector<std::vector<Line>> sets_;
};

} // namespace

TEST_CASE("simulator agrees with a plain reference model on random traces", "[cachesim]") {
    std::mt19937_64 rng(20240611);
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    // Small geometries make hits, evictions and straddles all common; the last two
    // hold over a thousand lines, which grows the simulator's block index and
    // makes it delete entries under load.
    std::vector<CacheGeometry> geometries;
    for (int i = 0; i < 150; ++i)
        geometries.push_back({pick(0, 3), pick(1, 5), pick(0, 4)});
    geometries.push_back({0, 1500, 0});
    geometries.push_back({3, 300, 1});

    for (const auto& g : geometries) {
        CAPTURE(g.s, g.E, g.b);
        CacheSim sim(g);
        ReferenceCache ref(g);
        const std::uint64_t span = g.E > 100 ? 6000 : pick(16, 512);
        std::uint64_t hits = 0, misses = 0, evictions = 0;
        for (int i = 0; i < 4000; ++i) {
            const auto kind = static_cast<AccessKind>(pick(0, 2));
            const std::uint64_t addr = pick(0, span), size = pick(1, 8);
            Outcomes expected, got;
            ref.access(addr, size, kind, expected);
            sim.access(addr, size, kind, [&](BlockOutcome o) { got.push_back(o); });
            REQUIRE(got == expected);
            for (auto o : expected) {
                hits += o == BlockOutcome::hit;
                misses += o != BlockOutcome::hit;
                evictions += o == BlockOutcome::miss_eviction;
            }
        }
        CHECK(sim.hits() == hits);
        CHECK(sim.misses() == misses);
        CHECK(sim.evictions() == evictions);
        CHECK(sim.dirty_bytes_evicted() == ref.dirty_evicted);
        CHECK(sim.dirty_bytes_active() == ref.dirty_active());
    }
}

TEST_CASE("lackey lines parse into accesses; anything else is malformed", "[cachesim]") {
    auto line = parse_lackey_line(" M 0421e5e8,4");
    CHECK(line.type == TraceLine::Type::data);
    CHECK(line.kind == AccessKind::modify);
    CHECK(line.addr == 0x421e5e8);
    CHECK(line.size == 4);

    line = parse_lackey_line("I  04016c0,3");
    CHECK(line.type == TraceLine::Type::instruction);
    CHECK(line.addr == 0x4016c0);

    CHECK(parse_lackey_line(" S 7ff000398,8\r").type == TraceLine::Type::data);
    CHECK(parse_lackey_line("==4372== Lackey, an example Valgrind tool").type ==
          TraceLine::Type::ignored);
    CHECK(parse_lackey_line("   ").type == TraceLine::Type::ignored);
    for (const char* bad : {"X 12", " L 10", " L ,4", " L 10,", " L 10,0", " L 10,4x", " L10,4",
                            " L 10000000000000000,1", " L ffffffffffffffff,2", " L 10,99999999"}) {
        CAPTURE(bad);
        CHECK(parse_lackey_line(bad).type == TraceLine::Type::malformed);
    }
}

TEST_CASE("a lackey trace read in chunks of any size reads as from a file", "[cachesim]") {
    struct Recorder final : TraceSink {
        std::vector<std::string> seen;
        void instruction(std::uint64_t addr, std::uint64_t size) override {
            seen.push_back("I " + std::to_string(addr) + "," + std::to_string(size));
        }
        void data(AccessKind kind, std::uint64_t addr, std::uint64_t size) override {
            seen.push_back(std::string(1, access_letter(kind)) + " " + std::to_string(addr) + "," + std::to_string(size));
        }
        void malformed(std::uint64_t line_number, std::string_view line, const char* problem) override {
            seen.push_back(std::to_string(line_number) + ": " + std::string(line) + " (" + problem + ")");
        }
    };
    // An overlong line, and a last line with no newline.
    const std::string trace = "==1== Lackey\nI  04016c0,3\n L 10,1\nbad\n M 20,4\n" +
                              std::string((std::size_t{1} << 20) + 5, 'x') + "\n S 18,8";
    FILE* file = std::tmpfile();
    REQUIRE(file != nullptr);
    std::fwrite(trace.data(), 1, trace.size(), file);
    std::fflush(file);
    REQUIRE(::lseek(::fileno(file), 0, SEEK_SET) == 0);
    Recorder from_file;
    read_lackey_trace(::fileno(file), from_file);
    std::fclose(file);
    REQUIRE(from_file.seen.size() == 6);
    CHECK(from_file.seen[0] == "I 4200128,3");
    CHECK(from_file.seen[2] == "4: bad (expected I, L, S or M)");
    CHECK(from_file.seen[4] == "6: " + std::string(60, 'x') + "... (line longer than 1 MiB)");
    CHECK(from_file.seen[5] == "S 24,8");
    for (std::size_t step : {1, 2, 3, 7, 4096, 65536}) {
        CAPTURE(step);
        Recorder pushed;
        LackeyTraceReader reader(pushed);
        for (std::size_t at = 0; at < trace.size(); at += step) reader.feed(std::string_view(trace).substr(at, step));
        reader.finish();
        CHECK(pushed.seen == from_file.seen);
    }
}

// ---- the binary -------------------------------------------------------------

namespace {

const std::string cachesim = PERFLAB_ROOT "/cachesim";

struct Scratch {
    std::string dir;
    Scratch() {
        char name[] = "/tmp/cachesim-test-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        dir = name;
    }
    ~Scratch() { std::filesystem::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = dir + "/" + name;
        std::ofstream(path) << text;
        return path;
    }
};

struct Result {
    int status;
    std::string out, err;
};

// Runs a shell command line, capturing stdout and stderr apart.
Result run(const std::string& command) {
    auto r = test::sh(command);
    return {r.status, r.out, r.err};
}

std::size_t count_lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct Summary {
    std::uint64_t hits, misses, evictions, dirty_evicted, dirty_active;
};

Summary parse_summary(const std::string& out) {
    Summary s{};
    const auto at = out.rfind("hits:");
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(out.c_str() + at,
                        "hits:%lu misses:%lu evictions:%lu\ndirty_bytes_evicted:%lu dirty_bytes_active:%lu",
                        &s.hits, &s.misses, &s.evictions, &s.dirty_evicted, &s.dirty_active) == 5);
    return s;
}

// The CS:APP cache lab's yi.trace.
constexpr const char* yi_trace = " L 10,1\n M 20,1\n L 22,1\n S 18,1\n L 110,1\n L 210,1\n M 12,1\n";

} // namespace

TEST_CASE("cachesim -v prints the classroom trace table", "[cachesim]") {
    Scratch scratch;
    const auto trace = scratch.write("yi.trace", yi_trace);
    // s=4 E=1 b=4: 16 sets of one 16-byte line; block = addr/16, set = block%16.
    // L 10: block 1 miss. M 20: block 2 miss, then its store hits (dirty).
    // L 22: block 2 hit. S 18: block 1 hit (dirty). L 110: block 0x11 -> set 1,
    // evicts dirty block 1 (16 dirty bytes out). L 210: block 0x21 -> set 1,
    // evicts clean 0x11. M 12: block 1 -> set 1, evicts clean 0x21, store hits
    // (dirty). At the end blocks 2 and 1 are dirty: 32 bytes.
    const Result r = run(cachesim + " -s 4 -E 1 -b 4 -t " + trace + " -v");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(r.out == "L 10,1 miss\n"
                   "M 20,1 miss hit\n"
                   "L 22,1 hit\n"
                   "S 18,1 hit\n"
                   "L 110,1 miss eviction\n"
                   "L 210,1 miss eviction\n"
                   "M 12,1 miss eviction hit\n"
                   "hits:4 misses:5 evictions:3\n"
                   "dirty_bytes_evicted:16 dirty_bytes_active:32\n");
}

TEST_CASE("cachesim reports malformed lines by number, skips them and exits 1", "[cachesim]") {
    Scratch scratch;
    // Lines 3 and 5 are malformed; the four good loads hit blocks 1, 1, 2, 1 of a
    // 4-set, 16-byte-block direct-mapped cache: miss, hit, miss, hit.
    const auto trace = scratch.write("bad.trace", "I  0400d7d4,8\n L 10,1\nX 12\n L 14,1\n L zz,1\n"
                                                  " L 20,1\n L 1f,1\n");
    const Result r = run(cachesim + " -s 2 -E 1 -b 4 -t " + trace);
    CHECK(r.status == 1);
    CHECK(r.err.find("bad.trace:3: malformed access 'X 12'") != std::string::npos);
    CHECK(r.err.find("bad.trace:5: malformed access ' L zz,1'") != std::string::npos);
    CHECK(r.err.find(":2:") == std::string::npos);
    const Summary s = parse_summary(r.out);
    CHECK(s.hits == 2);
    CHECK(s.misses == 2);
}

TEST_CASE("cachesim usage errors are one line and exit 1", "[cachesim]") {
    Scratch scratch;
    const auto trace = scratch.write("yi.trace", yi_trace);
    for (const std::string& args : std::vector<std::string>{"-s -1 -E 1 -b 4 -t " + trace, "-s abc -E 1 -b 4 -t " + trace, "-s 1 -E 0 -b 4 -t " + trace,
          "-s 20 -E 1 -b 50 -t " + trace, "-s 1 -E 1 -b 4", "-E 1 -b 4 -t " + trace,
          "-s 1 -E 1 -b 4 -t " + trace + " --function main", "-s 1 -E 1 -b 4 -t " + trace + " --bogus"}) {
        CAPTURE(args);
        const Result r = run(cachesim + " " + args);
        CHECK(r.status == 1);
        CHECK(count_lines(r.err) == 1);
        CHECK(r.out.empty());
    }

    const Result missing = run(cachesim + " -s 1 -E 1 -b 4 -t " + scratch.dir + "/no-such.trace");
    CHECK(missing.status == 1);
    CHECK(count_lines(missing.err) == 1);
    CHECK(missing.err.find("no-such.trace") != std::string::npos);

    const Result help = run(cachesim + " --help");
    CHECK(help.status == 0);
    for (const char* flag : {"-s", "-E", "-b", "-t", "-v", "--trace-program", "--function", "--version"})
        CHECK(help.out.find(flag) != std::string::npos);
    CHECK(run(cachesim + " --version").status == 0);
}

TEST_CASE("cachesim --trace-program names the fix when valgrind is missing", "[cachesim]") {
    const Result r = run("/usr/bin/env PATH=/nonexistent " + cachesim +
                         " -s 1 -E 1 -b 4 --trace-program -- /bin/true");
    CHECK(r.status == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("apt-get install valgrind") != std::string::npos);
}

namespace {

// tests/fixtures/cachesim/sweep.c, built by probe/cachesim.mk as a PIE and not.
const std::string sweep_pie = PERFLAB_ROOT "/build/tests/cachesim-sweep-pie";
const std::string sweep_nopie = PERFLAB_ROOT "/build/tests/cachesim-sweep-nopie";
constexpr std::uint64_t sweep_bytes = 65536;

} // namespace

TEST_CASE("cachesim --trace-program --function sees a real program's sweep", "[cachesim]") {
    // sweep() loads 65536 bytes in order from a page-aligned buffer, plus its
    // return address; main() stores 65536 bytes to another buffer first. With
    // B = 2^b the sweep misses 65536/B times, and once more for the stack block of
    // its return address (the 4-8 KiB caches here keep nothing from main's loop).
    // The PIE checks that the load base valgrind chose is found.
    for (const auto& [program, b] : {std::pair{sweep_pie, 6u}, std::pair{sweep_nopie, 5u}}) {
        CAPTURE(program, b);
        const Result r = run(cachesim + " -s 5 -E 4 -b " + std::to_string(b) +
                             " --trace-program --function sweep -- " + program);
        REQUIRE(r.status == 0);
        const Summary s = parse_summary(r.out);
        const std::uint64_t blocks = sweep_bytes >> b;
        CHECK(s.misses >= blocks);
        CHECK(s.misses <= blocks + 2);
        CHECK(s.hits + s.misses >= sweep_bytes);
        CHECK(s.hits + s.misses <= sweep_bytes + 4);
        // sweep() only loads: main's stores must not have been let through.
        CHECK(s.dirty_evicted == 0);
        CHECK(s.dirty_active == 0);
    }
}

TEST_CASE("cachesim --function counts a function's own accesses, not its callees'",
          "[cachesim]") {
    // caller() only calls sweep(): its own accesses are the call's store of the
    // return address and little else; sweep's 65536 loads belong to sweep.
    const Result r = run(cachesim + " -s 5 -E 4 -b 6 --trace-program --function caller -- " + sweep_pie);
    REQUIRE(r.status == 0);
    const Summary s = parse_summary(r.out);
    CHECK(s.hits + s.misses >= 1);
    CHECK(s.hits + s.misses <= 6);
}

TEST_CASE("cachesim --trace-program without --function simulates the whole program",
          "[cachesim]") {
    const Result r = run(cachesim + " -s 5 -E 4 -b 6 --trace-program -- " + sweep_pie);
    REQUIRE(r.status == 0);
    const Summary s = parse_summary(r.out);
    CHECK(s.hits + s.misses >= 2 * sweep_bytes);
    CHECK(s.misses >= 2 * (sweep_bytes >> 6));
    // main's 64 KiB of stores each dirty a line that is evicted or still cached.
    CHECK(s.dirty_evicted + s.dirty_active >= sweep_bytes);
}

TEST_CASE("cachesim --function with an unknown name is a one-line error", "[cachesim]") {
    const Result r =
        run(cachesim + " -s 5 -E 4 -b 6 --trace-program --function no_such_fn -- " + sweep_pie);
    CHECK(r.status == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("no_such_fn") != std::string::npos);
}
