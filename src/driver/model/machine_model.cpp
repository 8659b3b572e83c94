#include "machine_model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <stdexcept>
#include <vector>

#include "driver/evidence/cachegrind.hpp"

namespace perflab {
namespace {

// The [model] keys besides the [model.cycles] table, in the order they are written.
constexpr std::array<std::string_view, 10> kModelKeys{"seed",           "line_bytes",      "l1d_bytes",
                                                      "l1d_ways",       "ll_bytes",        "ll_ways",
                                                      "l1d_miss_cycles", "ll_miss_cycles", "store_miss_factor",
                                                      "timing_bound"};

// [model.cycles]: the instruction classes, then the two per-access costs.
std::vector<std::string_view> cycle_keys() {
    std::vector<std::string_view> keys(kInstrClassNames.begin(), kInstrClassNames.end());
    keys.insert(keys.end(), {"load", "store"});
    return keys;
}

// The field of [model.cycles] `key` (one of cycle_keys()).
template <typename Model>
auto& cycles_field(Model& m, std::string_view key) {
    for (std::size_t i = 0; i < kInstrClassCount; ++i)
        if (key == kInstrClassNames[i]) return m.instr_cycles[i];
    return key == "load" ? m.load_cycles : m.store_cycles;
}

std::string size_text(std::uint64_t bytes) {
    if (bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

class TableReader {
public:
    TableReader(const toml::table& t, std::string source, std::string table)
        : t_(t), source_(std::move(source)), table_(std::move(table)) {}

    [[noreturn]] void fail(std::string_view key, const std::string& what) const {
        throw std::runtime_error(fmt::format("{}: [{}] {} {}", source_, table_, key, what));
    }

    void known_keys(const std::vector<std::string_view>& keys) const {
        for (const auto& [key, node] : t_) {
            bool known = false;
            for (auto k : keys) known = known || key.str() == k;
            if (!known)
                throw std::runtime_error(fmt::format("{}: unknown key [{}] {}: the keys are {}", source_, table_,
                                                     key.str(), fmt::join(keys, ", ")));
        }
    }

    // A non-negative finite number of cycles (or a factor), when the key is given.
    void cycles(std::string_view key, double& out) const {
        const toml::node* n = t_.get(key);
        if (!n) return;
        auto v = n->value<double>();
        if (!v || !std::isfinite(*v) || *v < 0) fail(key, "must be a number of cycles >= 0, e.g. 1.5");
        out = *v;
    }

    template <typename Int>
    void whole(std::string_view key, Int& out, std::int64_t lo, std::int64_t hi, const char* example) const {
        const toml::node* n = t_.get(key);
        if (!n) return;
        auto v = n->value_exact<std::int64_t>();
        if (!v || *v < lo || *v > hi) fail(key, fmt::format("must be a whole number from {} to {}, e.g. {}", lo, hi, example));
        out = Int(*v);
    }

private:
    const toml::table& t_;
    std::string source_, table_;
};

void check_cache(const std::string& source, const char* name, const ModelCache& c, int line) {
    SimulatedCache sim{std::size_t(c.bytes), c.ways, line};
    if (auto why = cachegrind_geometry_error(sim))
        throw std::runtime_error(fmt::format("{}: [model] {}_bytes, {}_ways and line_bytes cannot be simulated: {}",
                                             source, name, name, *why));
}

}  // namespace

MachineModel default_machine_model() {
    MachineModel m;
    // Reciprocal throughputs of llvm-mca-14's znver3 scheduling model for a typical
    // instruction of each class (docs/model.md, bench/model_costs.sh).
    auto set = [&](InstrClass c, double v) { m.instr_cycles[std::size_t(c)] = v; };
    set(InstrClass::alu, 0.25);
    set(InstrClass::mul, 1.0);
    set(InstrClass::div, 13.0);
    set(InstrClass::branch, 0.5);
    set(InstrClass::vector, 0.25);
    set(InstrClass::vector_mul, 0.5);
    set(InstrClass::fp_div, 3.0);
    set(InstrClass::other, 1.0);
    m.load_cycles = 0.33;
    m.store_cycles = 1.0;
    m.l1d_miss_cycles = 12;
    m.ll_miss_cycles = 60;
    m.store_miss_factor = 6;
    m.seed = 20261207;
    m.timing_bound = 4;
    return m;
}

MachineModel parse_machine_model(const toml::table& table, const std::string& source) {
    MachineModel m = default_machine_model();
    TableReader r(table, source, "model");
    std::vector<std::string_view> keys(kModelKeys.begin(), kModelKeys.end());
    keys.push_back("cycles");
    r.known_keys(keys);
    r.whole("seed", m.seed, 0, 0xffffffffLL, "20261207");
    r.whole("line_bytes", m.line_bytes, 16, 4096, "64");
    r.whole("l1d_bytes", m.l1d.bytes, 1, std::int64_t{1} << 30, "32768");
    r.whole("l1d_ways", m.l1d.ways, 1, 1024, "8");
    r.whole("ll_bytes", m.ll.bytes, 1, std::int64_t{1} << 30, "1048576");
    r.whole("ll_ways", m.ll.ways, 1, 1024, "16");
    r.cycles("l1d_miss_cycles", m.l1d_miss_cycles);
    r.cycles("ll_miss_cycles", m.ll_miss_cycles);
    r.cycles("store_miss_factor", m.store_miss_factor);
    r.cycles("timing_bound", m.timing_bound);
    if (m.timing_bound < 1) r.fail("timing_bound", "must be at least 1 (the model may not exceed the timed speedup by less than nothing)");
    check_cache(source, "l1d", m.l1d, m.line_bytes);
    check_cache(source, "ll", m.ll, m.line_bytes);
    if (m.ll.bytes <= m.l1d.bytes) r.fail("ll_bytes", "must be larger than l1d_bytes");
    if (const toml::node* n = table.get("cycles")) {
        const toml::table* cycles = n->as_table();
        if (!cycles) r.fail("cycles", "must be a table, [model.cycles], of cycles per instruction class");
        TableReader c(*cycles, source, "model.cycles");
        c.known_keys(cycle_keys());
        for (auto key : cycle_keys()) c.cycles(key, cycles_field(m, key));
    }
    return m;
}

std::vector<std::pair<std::string_view, double>> model_cycles(const MachineModel& m) {
    std::vector<std::pair<std::string_view, double>> out;
    for (auto key : cycle_keys()) out.emplace_back(key, cycles_field(m, key));
    return out;
}

std::string machine_model_toml(const MachineModel& m) {
    std::string out = fmt::format(
        "\n[model]\n# The model machine of basis = \"model\" (docs/model.md): never this machine's.\n"
        "seed = {}\nline_bytes = {}\nl1d_bytes = {}\nl1d_ways = {}\nll_bytes = {}\nll_ways = {}\n"
        "l1d_miss_cycles = {}\nll_miss_cycles = {}\nstore_miss_factor = {}\ntiming_bound = {}\n\n[model.cycles]\n",
        m.seed, m.line_bytes, m.l1d.bytes, m.l1d.ways, m.ll.bytes, m.ll.ways, m.l1d_miss_cycles, m.ll_miss_cycles,
        m.store_miss_factor, m.timing_bound);
    for (const auto& [key, cycles] : model_cycles(m)) out += fmt::format("{} = {}\n", key, cycles);
    return out;
}

std::string describe_machine_model(const MachineModel& m) {
    std::vector<std::string> costs;
    for (const auto& [key, cycles] : model_cycles(m)) costs.push_back(fmt::format("{} {}", key, cycles));
    return fmt::format("L1d {} {}-way, LL {} {}-way, {} B lines; miss {} cycles at L1d, +{} at LL, x{} for a store; "
                       "cycles: {}; seed {}",
                       size_text(m.l1d.bytes), m.l1d.ways, size_text(m.ll.bytes), m.ll.ways, m.line_bytes,
                       m.l1d_miss_cycles, m.ll_miss_cycles, m.store_miss_factor, fmt::join(costs, ", "), m.seed);
}

}  // namespace perflab
