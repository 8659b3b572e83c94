// The cache simulation: geometry from the machine or the command line, the
// cachegrind.out parser on a hand-written file, a real cachegrind run on a
// program with a known access pattern, and naming functions by address.
#include "driver/evidence/cachegrind.hpp"
#include "driver/evidence/simulation.hpp"
#include "driver/evidence/symbol_table.hpp"
#include "harness.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>

using namespace perflab;
using perflab::test::repo;

namespace {

template <typename T>
const T& value_or_fail(const std::variant<T, SimulationError>& v) {
    if (auto* e = std::get_if<SimulationError>(&v)) FAIL(e->message);
    return std::get<T>(v);
}

std::string error_of(const std::variant<CachegrindGeometry, SimulationError>& v) {
    auto* e = std::get_if<SimulationError>(&v);
    return e ? e->message : "";
}

CacheLevel level(int n, std::size_t size, int ways, bool plausible = true) {
    return {n, n == 1 ? "Data" : "Unified", size, ways, 64, "cpuid 0x8000000" + std::to_string(n == 1 ? 5 : 6),
            plausible};
}

}  // namespace

TEST_CASE("cache geometry from the machine", "[cachegrind]") {
    MachineInfo m;
    SECTION("the course VM: the 508 MiB L3 is implausible, so LL is the L2") {
        m.caches = {level(1, 48 << 10, 12), level(2, 1 << 20, 8), level(3, std::size_t(508) << 20, 16, false)};
        auto g = value_or_fail(geometry_from_machine(m));
        CHECK(g.D1 == SimulatedCache{48 << 10, 12, 64});  // 64 sets
        CHECK(g.LL == SimulatedCache{1 << 20, 8, 64});    // 2048 sets
        CHECK(g.source.find("L2") != std::string::npos);
        CHECK(g.source.find("cpuid") != std::string::npos);
    }
    SECTION("a plausible but huge L3 is capped, keeping its ways") {
        m.caches = {level(1, 32 << 10, 8), level(3, std::size_t(96) << 20, 16)};
        auto g = value_or_fail(geometry_from_machine(m));
        CHECK(g.LL == SimulatedCache{kSimulatedLLCap, 16, 64});
        CHECK(g.source.find("capped from 96 MiB to 32 MiB") != std::string::npos);
    }
    SECTION("a set count that is not a power of two keeps the size, with more ways") {
        // 30 MiB / (20 x 64) = 24576 = 3 x 8192 sets -> 8192 sets of 60 ways.
        m.caches = {level(1, 32 << 10, 8), level(3, std::size_t(30) << 20, 20)};
        auto g = value_or_fail(geometry_from_machine(m));
        CHECK(g.LL == SimulatedCache{std::size_t(30) << 20, 60, 64});
        CHECK(g.source.find("20-way simulated as 60-way") != std::string::npos);
    }
    SECTION("no cache figures at all") {
        CHECK(error_of(geometry_from_machine(m)).find("D1=size,ways,line") != std::string::npos);
    }
}

namespace {

// A Zen 4 core's CPUID as read_cpuid_caches() asks it: 32 KiB 8-way L1d, 1 MiB 8-way
// L2, 32 MiB L3 whose legacy leaf defers its ways (code 9) to leaf 0x8000001D,
// which there is only with TopologyExtensions (CPUID 0x80000001 ECX bit 22).
Cpuid zen4_cpuid(bool topology_extensions) {
    return [=](unsigned leaf, unsigned sub) -> std::optional<CpuidRegs> {
        // Leaf 4 subleaf: type (1 data, 2 instruction, 3 unified), level, logical CPUs
        // sharing it, ways, sets, 64 B lines.
        auto cache = [](unsigned type, unsigned level, unsigned sharing, unsigned ways, unsigned sets) {
            return CpuidRegs{type | level << 5 | (sharing - 1) << 14, (ways - 1) << 22 | 63, sets - 1, 0};
        };
        switch (leaf) {
            case 0: return CpuidRegs{0x10, 0x68747541, 0x444d4163, 0x69746e65};  // AuthenticAMD
            case 0x80000000: return CpuidRegs{0x80000021, 0, 0, 0};
            case 0x80000001: return CpuidRegs{0, 0, topology_extensions ? 1u << 22 : 0u, 0};
            case 0x80000005: return CpuidRegs{0, 0, 32u << 24 | 8u << 16 | 64, 0};
            case 0x80000006: return CpuidRegs{0, 0, 1024u << 16 | 0x6u << 12 | 64, 64u << 18 | 0x9u << 12 | 64};
            case 0x8000001D:
                switch (sub) {
                    case 0: return cache(1, 1, 2, 8, 64);  // an SMT core's two threads
                    case 1: return cache(2, 1, 2, 8, 64);
                    case 2: return cache(3, 2, 2, 8, 2048);
                    case 3: return cache(3, 3, 16, 16, 32768);  // an 8-core CCX
                    default: return CpuidRegs{};
                }
            default: return std::nullopt;
        }
    };
}

}  // namespace

TEST_CASE("a Zen without sysfs cache entries: L3 ways from CPUID leaf 0x8000001D, else LL is the L2", "[cachegrind]") {
    MachineInfo m;
    SECTION("with leaf 0x8000001D every level is known, the L3 too") {
        m.caches = read_cpuid_caches(zen4_cpuid(true));
        REQUIRE(m.level(3) != nullptr);
        CHECK(m.level(3)->ways == 16);
        CHECK(m.level(3)->source == "cpuid 0x8000001D");
        CHECK(m.level(2)->shared_cpus == 2);
        CHECK(m.level(3)->shared_cpus == 16);
        auto g = value_or_fail(geometry_from_machine(m));
        CHECK(g.D1 == SimulatedCache{32 << 10, 8, 64});
        CHECK(g.LL == SimulatedCache{32 << 20, 16, 64});
        CHECK(g.source == "D1 = L1d from cpuid 0x8000001D, LL = L3 from cpuid 0x8000001D");
    }
    SECTION("without it the L3's ways are unknown, and --simulate models the L2, saying why") {
        m.caches = read_cpuid_caches(zen4_cpuid(false));
        REQUIRE(m.level(3) != nullptr);
        CHECK(m.level(3)->size_bytes == std::size_t(32) << 20);
        CHECK(m.level(3)->ways == 0);
        CHECK(m.level(3)->shared_cpus == 0);  // the legacy leaves do not say
        auto g = value_or_fail(geometry_from_machine(m));
        CHECK(g.D1 == SimulatedCache{32 << 10, 8, 64});
        CHECK(g.LL == SimulatedCache{1 << 20, 8, 64});
        CHECK_THAT(g.source, Catch::Contains("LL = L2 from cpuid 0x80000006 (the L3 from cpuid 0x80000006 gives no "
                                             "associativity)"));
    }
}

TEST_CASE("cache geometry from a specification", "[cachegrind]") {
    auto g = value_or_fail(parse_cache_geometry("D1=32768,8,64:LL=1048576,16,64"));
    CHECK(g.D1 == SimulatedCache{32768, 8, 64});
    CHECK(g.LL == SimulatedCache{1048576, 16, 64});
    CHECK(value_or_fail(parse_cache_geometry("LL=1048576,16,64:D1=49152,12,64")).D1 == SimulatedCache{49152, 12, 64});

    // 49152 / (8 x 64) = 96 sets
    CHECK(error_of(parse_cache_geometry("D1=49152,8,64:LL=1048576,16,64")).find("96 sets") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,8:LL=1048576,16,64")).find("minimum of 16") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,48:LL=1048576,16,64")).find("power of two") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,64:LL=1000000,16,64")).find("multiple") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,0,64:LL=1048576,16,64")).find("positive") != std::string::npos);
    // valgrind itself refuses these ("Cache size <= line size", "overflowed") only once a run is under way.
    CHECK(error_of(parse_cache_geometry("D1=32768,8,64:LL=16,1,16")).find("not larger than a line") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,64:LL=2147483648,16,64")).find("limit") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8:LL=1048576,16,64")).find("size,ways,line") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32k,8,64:LL=1048576,16,64")).find("size,ways,line") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("L2=32768,8,64:LL=1048576,16,64")).find("'L2=") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,64")).find("needs both") != std::string::npos);
    CHECK(error_of(parse_cache_geometry("D1=32768,8,64:LL=1048576,16,64:LL=2097152,16,64")).find("LL twice") !=
          std::string::npos);
    CHECK(error_of(parse_cache_geometry("")).find("needs both") != std::string::npos);
}

// Columns: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw. Line 11 drops its trailing
// zeros, as cachegrind may. Two static `helper`s live in a.c and b.c; `main` has a
// line inlined from defs.h.
//   a.c  helper = line 10 + line 11 = Ir 10, I1mr 1, ILmr 1, Dr 5, D1mr 3, DLmr 1, Dw 1, D1mw 1, DLmw 1
//   a.c  main   = Ir 5, I1mr 1, Dw 2
//   defs.h main = Ir 2, Dr 1, D1mr 1, DLmr 1
//   b.c  helper = Ir 10, Dw 4, D1mw 4, DLmw 4
//   total       = Ir 27, I1mr 2, ILmr 1, Dr 6, D1mr 4, DLmr 2, Dw 7, D1mw 5, DLmw 5 (the summary line)
static const char* const kSample = R"(desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         1048576 B, 64 B, 16-way associative
cmd: ./prog 100
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/src/a.c
fn=helper
10 4 1 1 2 1 0 1 1 1
11 6 0 0 3 2 1
fn=main
20 5 1 0 0 0 0 2 0 0
fl=/src/defs.h
fn=main
3 2 0 0 1 1 1 0 0 0
fl=/other/b.c
fn=helper
7 10 0 0 0 0 0 4 4 4
summary: 27 2 1 6 4 2 7 5 5
)";

TEST_CASE("parsing a cachegrind.out file", "[cachegrind]") {
    std::istringstream in(kSample);
    auto totals = value_or_fail(parse_cachegrind_out(in));
    REQUIRE(totals.functions.size() == 4);
    CHECK(totals.functions.at({"/src/a.c", "helper"}) == CacheCounts{10, 1, 1, 5, 3, 1, 1, 1, 1});
    CHECK(totals.functions.at({"/src/a.c", "main"}) == CacheCounts{5, 1, 0, 0, 0, 0, 2, 0, 0});
    CHECK(totals.functions.at({"/src/defs.h", "main"}) == CacheCounts{2, 0, 0, 1, 1, 1, 0, 0, 0});
    CHECK(totals.functions.at({"/other/b.c", "helper"}) == CacheCounts{10, 0, 0, 0, 0, 0, 4, 4, 4});
    CHECK(totals.total == CacheCounts{27, 2, 1, 6, 4, 2, 7, 5, 5});
}

TEST_CASE("malformed cachegrind output is refused", "[cachegrind]") {
    auto error_for = [](std::string text) {
        std::istringstream in(text);
        auto r = parse_cachegrind_out(in);
        auto* e = std::get_if<SimulationError>(&r);
        return e ? e->message : std::string("(parsed)");
    };
    std::string sample = kSample;
    CHECK(error_for(sample.replace(sample.find("summary: 27"), 11, "summary: 28")).find("summary") !=
          std::string::npos);
    CHECK(error_for("events: Ir\nfl=a.c\nfn=f\n1 5\n").find("--cache-sim=yes") != std::string::npos);
    CHECK(error_for("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nfl=a.c\nfn=f\n1 1 2 3 4 5 6 7 8 9 10\n")
              .find("line 4") != std::string::npos);
    CHECK(error_for("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nfl=a.c\nfn=f\n1 x\n").find("bad counts") !=
          std::string::npos);
    CHECK(error_for("just text\n").find("no events") != std::string::npos);
}

namespace {

// Builds the fixture once per test run, with the flags the student's kernels get.
std::string stream_program() {
    static const std::string path = [] {
        std::string exe = test::scratch_dir("cachegrind-stream") + "/stream";
        std::string cmd = std::string("gcc -O2 -g ") + PERFLAB_ROOT + "/tests/fixtures/cachegrind/stream.c -o " + exe;
        auto built = test::sh(cmd);
        INFO(built.err);
        REQUIRE(built.status == 0);
        return exe;
    }();
    return path;
}

CachegrindTotals simulate(const std::vector<std::string>& argv, const std::string& geometry) {
    auto g = value_or_fail(parse_cache_geometry(geometry));
    return value_or_fail(run_cachegrind(argv, g));
}

// One function of the fixture program, summed over the files its lines sit under.
std::optional<CacheCounts> function_counts(const CachegrindTotals& totals, const std::string& function) {
    std::optional<CacheCounts> sum;
    for (const auto& [key, counts] : totals.functions)
        if (key.function == function) (sum ? *sum : sum.emplace()) += counts;
    return sum;
}

}  // namespace

TEST_CASE("cachegrind on a sequential writer: one D1 write miss per line, every run", "[cachegrind]") {
    constexpr std::size_t n = 1 << 20, lines = n / 64;
    const std::string geometry = "D1=32768,8,64:LL=1048576,16,64";
    auto first = simulate({stream_program(), std::to_string(n)}, geometry);
    auto writer = function_counts(first, "write_stream");
    REQUIRE(writer.has_value());
    CHECK(writer->Dw == n);  // one volatile byte store per byte
    CHECK(writer->D1mw >= lines);
    CHECK(writer->D1mw <= lines + lines / 100);
    CHECK(writer->D1mr < 16);

    // 1 MiB read back through a 32 KiB D1: every line misses again.
    auto reader = function_counts(first, "read_back");
    REQUIRE(reader.has_value());
    CHECK(reader->D1mr >= lines);
    CHECK(reader->D1mr <= lines + lines / 100);

    auto second = simulate({stream_program(), std::to_string(n)}, geometry);
    CHECK(second.functions == first.functions);

    SECTION("a D1 that holds the whole buffer serves the read-back without misses") {
        auto big = simulate({stream_program(), std::to_string(n)}, "D1=2097152,8,64:LL=4194304,16,64");
        auto r = function_counts(big, "read_back");
        REQUIRE(r.has_value());
        CHECK(r->D1mr < 16);
    }
}

TEST_CASE("cachegrind failures are one line", "[cachegrind]") {
    auto g = value_or_fail(parse_cache_geometry("D1=32768,8,64:LL=1048576,16,64"));
    auto error_for = [&](const std::vector<std::string>& argv) {
        auto r = run_cachegrind(argv, g);
        auto* e = std::get_if<SimulationError>(&r);
        return e ? e->message : std::string("(ran)");
    };
    std::string failed = error_for({"/bin/sh", "-c", "echo first >&2; echo the real reason >&2; exit 3"});
    CHECK(failed.find("exited with status 3: the real reason") != std::string::npos);
    CHECK(failed.find('\n') == std::string::npos);
    // A child that says nothing is not given valgrind's own notes as its reason (on a Zen 4
    // guest, "--PID-- warning: simulated LL cache: ... total_size 268,435,456").
    std::string silent = error_for({"/bin/sh", "-c", "exit 3"});
    CHECK_THAT(silent, Catch::EndsWith("exited with status 3"));

    SECTION("without valgrind") {
        std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
        setenv("PATH", "/nonexistent", 1);
        std::string missing = error_for({"/bin/true"});
        setenv("PATH", saved.c_str(), 1);
        CHECK(missing == "valgrind is not installed: apt-get install valgrind");
    }
    SECTION("an invalid geometry never reaches valgrind") {
        CachegrindGeometry bad = g;
        bad.D1.assoc = 3;  // 32768 / (3 x 64) is no whole number of sets
        auto r = run_cachegrind({"/bin/true"}, bad);
        REQUIRE(std::holds_alternative<SimulationError>(r));
    }
}

namespace {

// The address nm gives a symbol of a kernel host, as the host would report it.
std::uint64_t nm_address(const std::string& exe, const std::string& symbol) {
    auto r = test::sh("nm '" + exe + "' | awk '$3 == \"" + symbol + "\" { print $1 }'");
    REQUIRE(!r.out.empty());
    return std::stoull(r.out, nullptr, 16);
}

}  // namespace

TEST_CASE("a host's symbol table names local and global functions by address", "[cachegrind]") {
    const std::string host = repo("reference-host");
    const std::uint64_t global = nm_address(host, "oracle_rotate");  // the oracle, global
    const std::uint64_t local = nm_address(host, "host_nothing");    // the runtime's, made local
    const auto symbols = function_symbols(host);
    auto name_at = [&](std::uint64_t address) -> std::optional<std::string> {
        const CodeSymbol* s = symbol_containing(symbols, address);
        return s ? std::optional(s->name) : std::nullopt;
    };
    CHECK(name_at(global) == std::optional<std::string>("oracle_rotate"));
    CHECK(name_at(global + 1) == std::optional<std::string>("oracle_rotate"));
    CHECK(name_at(local) == std::optional<std::string>("host_nothing"));
    CHECK_FALSE(name_at(16).has_value());
    // A position-independent program's symbols are not its addresses: no answer.
    CHECK(function_symbols(repo("driver")).empty());
}

TEST_CASE("a kernel's simulated misses do not depend on the host's path or environment", "[cachegrind]") {
    // Both lie above the host's stack: they used to move the simulated call's frames
    // (its return address, a kernel's spills) into other cache sets, so a TA running
    // a student's hand-in from another directory or shell saw a miss or two more.
    const auto geometry = value_or_fail(parse_cache_geometry("D1=49152,12,64:LL=33554432,16,64"));
    const std::string built = std::filesystem::path(test::build_driver("tests/fixtures/explain/blocked.c")).parent_path() / "kernel-host";
    const std::string dir = test::scratch_dir("cachegrind-stack");
    const HostFunction graded{Kernel::rotate, HostFunction::kGraded};
    auto misses_from = [&](const std::string& path, std::size_t padding) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::filesystem::copy_file(built, path, std::filesystem::copy_options::overwrite_existing);
        setenv("PERFLAB_TEST_PADDING", std::string(padding, 'x').c_str(), 1);
        auto sim = perflab::simulate({path, graded, 128}, geometry);
        unsetenv("PERFLAB_TEST_PADDING");
        return value_or_fail(sim);
    };
    const CounterValues here = misses_from(dir + "/kernel-host", 1);
    REQUIRE_FALSE(here.empty());
    for (std::size_t padding : {40, 333, 2500}) {
        INFO("environment padded by " << padding << " bytes");
        CHECK(misses_from(dir + "/a/much/longer/path/to/the/same/hand-in/kernel-host", padding) == here);
    }
}
