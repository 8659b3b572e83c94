#include "cachegrind.hpp"

#include "common/scratch_dir.hpp"

#include "common/subprocess.hpp"


#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace perflab {
namespace {

// The order cachegrind writes with --cache-sim=yes, and the fields it fills.
constexpr std::array<std::pair<const char*, std::uint64_t CacheCounts::*>, 9> kEvents{{
    {"Ir", &CacheCounts::Ir},
    {"I1mr", &CacheCounts::I1mr},
    {"ILmr", &CacheCounts::ILmr},
    {"Dr", &CacheCounts::Dr},
    {"D1mr", &CacheCounts::D1mr},
    {"DLmr", &CacheCounts::DLmr},
    {"Dw", &CacheCounts::Dw},
    {"D1mw", &CacheCounts::D1mw},
    {"DLmw", &CacheCounts::DLmw},
}};

// I1 is not what perflab reports, but cachegrind would otherwise take it from the
// host's CPUID, which is what we do not trust; any valid geometry will do.
constexpr const char* kI1 = "32768,8,64";
// A simulation runs the kernel some fifty times slower: even a large one ends well within this.
constexpr double kSimulationSeconds = 1800;

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep)) out.push_back(item);
    return out;
}

std::string describe(const SimulatedCache& c) { return fmt::format("{},{},{}", c.size, c.assoc, c.line); }

std::optional<std::uint64_t> parse_number(const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return std::nullopt;
    return std::stoull(s);
}

// The counts on a cost line "line c1 c2 ...": cachegrind may drop trailing zeros.
std::optional<CacheCounts> parse_cost_line(const std::string& line, const std::vector<int>& columns) {
    std::istringstream in(line);
    std::string word;
    in >> word;  // the source line number
    CacheCounts c;
    std::size_t i = 0;
    while (in >> word) {
        auto v = parse_number(word);
        if (!v || i >= columns.size()) return std::nullopt;
        if (columns[i] >= 0) c.*kEvents[std::size_t(columns[i])].second = *v;
        ++i;
    }
    return c;
}

// Keeps the capacity and folds the odd factor of the set count into the ways,
// as cachegrind itself does for an LL it detects: sets = 2^k * odd becomes 2^k
// sets of assoc * odd ways.
SimulatedCache with_power_of_two_sets(SimulatedCache c) {
    std::size_t way_bytes = std::size_t(c.assoc) * std::size_t(c.line);
    if (way_bytes == 0 || c.size % way_bytes != 0 || c.size == 0) return c;  // validation explains these
    std::size_t sets = c.size / way_bytes;
    c.assoc *= int(sets >> std::countr_zero(sets));
    return c;
}

std::optional<SimulatedCache> from_level(const CacheLevel* level) {
    if (!level || level->size_bytes == 0 || level->ways <= 0 || level->line_bytes <= 0) return std::nullopt;
    return SimulatedCache{level->size_bytes, level->ways, level->line_bytes};
}

// The level LL simulates: the last plausible one whose figures are all known. One
// without them - an AMD L3 whose legacy CPUID leaf defers its ways to leaf 0x8000001D,
// on a CPU or VM without that leaf - gives way to the level below, and `why` says so.
const CacheLevel* simulated_last_level(const MachineInfo& m, std::string& why) {
    const CacheLevel* last = m.last_level();
    for (int n = last ? last->level : 0; n >= 2; --n) {
        const CacheLevel* c = m.level(n);
        if (!c || !c->plausible) continue;
        if (from_level(c)) return c;
        if (why.empty())
            why = fmt::format(" (the L{} from {} gives no {})", c->level, c->source,
                              c->ways <= 0 ? "associativity" : "size or line size");
    }
    return last;
}

// valgrind's own notes, "--PID-- ...", even under -q: on a Zen whose legacy CPUID
// leaf reports a 320 MiB L3, the warnings that it would simulate that direct-mapped
// (it does not: --LL wins). Never the reason a child failed.
bool valgrind_note(const std::string& line) {
    if (!starts_with(line, "--")) return false;
    std::size_t end = line.find_first_not_of("0123456789", 2);
    return end != std::string::npos && end > 2 && line.compare(end, 3, "-- ") == 0;
}

// The child's last line on stderr, skipping valgrind's notes.
std::string last_line(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty() && !valgrind_note(line)) last = line;
    return last;
}

}  // namespace

std::uint64_t CacheCounts::*cache_count_field(std::string_view event) {
    for (const auto& [name, field] : kEvents)
        if (event == name) return field;
    return nullptr;
}

CacheCounts& CacheCounts::operator+=(const CacheCounts& o) {
    for (const auto& [name, field] : kEvents) this->*field += o.*field;
    return *this;
}

std::optional<std::string> cachegrind_geometry_error(const SimulatedCache& c) {
    if (c.size == 0 || c.assoc <= 0 || c.line <= 0) return "size, associativity and line size must all be positive";
    if (!std::has_single_bit(unsigned(c.line))) return fmt::format("line size {} is not a power of two", c.line);
    if (c.line < 16) return fmt::format("line size {} is below cachegrind's minimum of 16 bytes", c.line);
    // valgrind keeps the size in an int and refuses a cache of one line or less.
    if (c.size > std::size_t(INT_MAX)) return fmt::format("size {} is above cachegrind's limit of {} bytes", c.size, INT_MAX);
    if (c.size <= std::size_t(c.line))
        return fmt::format("size {} is not larger than a line of {} bytes, as cachegrind needs", c.size, c.line);
    std::size_t way_bytes = std::size_t(c.assoc) * std::size_t(c.line);
    if (c.size % way_bytes != 0)
        return fmt::format("size {} is not a multiple of associativity x line ({} x {} = {})", c.size, c.assoc, c.line,
                           way_bytes);
    std::size_t sets = c.size / way_bytes;
    if (!std::has_single_bit(sets))
        return fmt::format("{} / ({} x {}) = {} sets, and cachegrind needs a power of two", c.size, c.assoc, c.line,
                           sets);
    return std::nullopt;
}

std::variant<CachegrindGeometry, SimulationError> geometry_from_machine(const MachineInfo& m) {
    std::string passed_over;
    const CacheLevel* last = simulated_last_level(m, passed_over);
    auto d1 = from_level(m.l1d());
    auto ll = from_level(last);
    if (!d1 || !ll)
        return SimulationError{"the machine reports no usable L1d or last-level cache geometry: give one explicitly as "
                               "D1=size,ways,line:LL=size,ways,line"};
    std::string source =
        fmt::format("D1 = L1d from {}, LL = L{} from {}{}", m.l1d()->source, last->level, last->source, passed_over);
    if (ll->size > kSimulatedLLCap) {
        // Keep the ways: a smaller cache of the same associativity.
        source += fmt::format(", capped from {} MiB to {} MiB", ll->size >> 20, kSimulatedLLCap >> 20);
        ll->size = kSimulatedLLCap;
    }
    for (auto* c : {&*d1, &*ll}) {
        auto fitted = with_power_of_two_sets(*c);
        if (fitted.assoc != c->assoc) source += fmt::format(", {}-way simulated as {}-way", c->assoc, fitted.assoc);
        *c = fitted;
        if (auto why = cachegrind_geometry_error(*c))
            return SimulationError{fmt::format("the machine's cache {} cannot be simulated: {}", describe(*c), *why)};
    }
    return CachegrindGeometry{*d1, *ll, source};
}

std::variant<CachegrindGeometry, SimulationError> parse_cache_geometry(const std::string& spec) {
    CachegrindGeometry g;
    bool seen_d1 = false, seen_ll = false;
    for (const auto& part : split(spec, ':')) {
        auto eq = part.find('=');
        std::string name = part.substr(0, eq);
        bool is_d1 = name == "D1", is_ll = name == "LL";
        if (eq == std::string::npos || !(is_d1 || is_ll))
            return SimulationError{fmt::format("'{}' in cache geometry '{}' is not D1=... or LL=...", part, spec)};
        if (is_d1 ? seen_d1 : seen_ll)
            return SimulationError{fmt::format("cache geometry '{}' gives {} twice: give each cache once", spec, name)};
        auto fields = split(part.substr(eq + 1), ',');
        std::array<std::optional<std::uint64_t>, 3> v;
        for (std::size_t i = 0; i < fields.size() && i < 3; ++i) v[i] = parse_number(fields[i]);
        if (fields.size() != 3 || !v[0] || !v[1] || !v[2] || *v[1] > 1u << 20 || *v[2] > 1u << 20)
            return SimulationError{fmt::format("'{}' should be {}=size,ways,line in bytes, e.g. {}=32768,8,64", part,
                                               name, name)};
        SimulatedCache c{std::size_t(*v[0]), int(*v[1]), int(*v[2])};
        if (auto why = cachegrind_geometry_error(c))
            return SimulationError{fmt::format("{}={} cannot be simulated: {}", name, describe(c), *why)};
        (is_d1 ? g.D1 : g.LL) = c;
        (is_d1 ? seen_d1 : seen_ll) = true;
    }
    if (!seen_d1 || !seen_ll)
        return SimulationError{fmt::format("cache geometry '{}' needs both D1 and LL, e.g. D1=32768,8,64:LL=1048576,16,64",
                                           spec)};
    g.source = "given as " + spec;
    return g;
}

std::variant<CachegrindTotals, SimulationError> parse_cachegrind_out(std::istream& in) {
    CachegrindTotals totals;
    std::vector<int> columns;  // event column -> index into kEvents, -1 for events we do not keep
    std::optional<CacheCounts> summary;
    FunctionKey current;
    CacheCounts* target = nullptr;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        if (starts_with(line, "events:")) {
            std::istringstream names(line.substr(7));
            std::string name;
            std::vector<bool> found(kEvents.size());
            while (names >> name) {
                int idx = -1;
                for (std::size_t i = 0; i < kEvents.size(); ++i)
                    if (name == kEvents[i].first) idx = int(i), found[i] = true;
                columns.push_back(idx);
            }
            if (std::find(found.begin(), found.end(), false) != found.end())
                return SimulationError{"cachegrind output has no cache-simulation events (run with --cache-sim=yes)"};
        } else if (starts_with(line, "fl=")) {
            current.file = line.substr(3);
            target = nullptr;
        } else if (starts_with(line, "fn=")) {
            current.function = line.substr(3);
            target = &totals.functions[current];
        } else if (starts_with(line, "summary:")) {
            summary = parse_cost_line("0 " + line.substr(8), columns);
            if (!summary) return SimulationError{fmt::format("cachegrind output line {}: bad summary", number)};
        } else if (std::isdigit(static_cast<unsigned char>(line[0]))) {
            if (columns.empty() || !target)
                return SimulationError{fmt::format("cachegrind output line {}: counts before events:/fn=", number)};
            auto counts = parse_cost_line(line, columns);
            if (!counts) return SimulationError{fmt::format("cachegrind output line {}: bad counts '{}'", number, line)};
            *target += *counts;
            totals.total += *counts;
        }
        // desc:, cmd: and anything a later cachegrind adds carry no counts.
    }
    if (columns.empty()) return SimulationError{"not a cachegrind output file (no events: line)"};
    if (summary && !(*summary == totals.total))
        return SimulationError{"cachegrind output is inconsistent: its per-line counts do not add up to its summary"};
    return totals;
}

std::variant<CachegrindTotals, SimulationError> run_cachegrind(const std::vector<std::string>& argv,
                                                               const CachegrindGeometry& geometry) {
    if (argv.empty()) return SimulationError{"no program to run under cachegrind"};
    for (const auto* c : {&geometry.D1, &geometry.LL})
        if (auto why = cachegrind_geometry_error(*c))
            return SimulationError{fmt::format("cache {} cannot be simulated: {}", describe(*c), *why)};
    auto valgrind = find_executable("valgrind");
    if (!valgrind) return SimulationError{"valgrind is not installed: apt-get install valgrind"};
    std::optional<ScratchDir> scratch;
    try {
        scratch.emplace("perflab-cg");
    } catch (const std::exception& e) {
        return SimulationError{e.what()};
    }
    const ScratchDir& dir = *scratch;

    SpawnSpec spec = command({*valgrind, "--tool=cachegrind", "--cache-sim=yes",
                              "-q",  // valgrind's own summary would bury the child's last line
                              "--D1=" + describe(geometry.D1), "--LL=" + describe(geometry.LL),
                              std::string("--I1=") + kI1, "--cachegrind-out-file=" + dir.file("cachegrind.out")},
                             kSimulationSeconds);
    spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
    spec.fixed_addresses = true;  // so that runs repeat exactly
    Finished f = spawn(spec);
    if (!f.exited_ok()) {
        std::string last = last_line(f.output);
        return SimulationError{fmt::format("'{}' under cachegrind {}{}", argv[0], f.describe(), last.empty() ? "" : ": " + last)};
    }
    std::ifstream out(dir.file("cachegrind.out"));
    if (!out) return SimulationError{fmt::format("cachegrind wrote no output for '{}'", argv[0])};
    return parse_cachegrind_out(out);
}

}  // namespace perflab
