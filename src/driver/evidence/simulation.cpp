#include "simulation.hpp"

#include <fmt/format.h>

namespace perflab {
namespace {

CacheCounts difference(const CacheCounts& a, const CacheCounts& b) {
    auto d = [](std::uint64_t x, std::uint64_t y) { return x > y ? x - y : 0; };
    return {d(a.Ir, b.Ir),   d(a.I1mr, b.I1mr), d(a.ILmr, b.ILmr), d(a.Dr, b.Dr),   d(a.D1mr, b.D1mr),
            d(a.DLmr, b.DLmr), d(a.Dw, b.Dw),   d(a.D1mw, b.D1mw), d(a.DLmw, b.DLmw)};
}

}  // namespace

std::variant<CounterValues, SimulationError> simulate(const SimulationTarget& target, const CachegrindGeometry& geometry) {
    CacheCounts totals[2];
    for (bool call : {true, false}) {
        const HostFunction& f = target.fn;
        std::string spec = fmt::format("{}:{}:{}:{}:{}", f.kernel == Kernel::rotate ? 0 : 1, f.variant, target.dim,
                                       call ? 1 : 0, f.arg);
        auto run = run_cachegrind({target.host_exe, "--simulate", spec}, geometry);
        if (auto* err = std::get_if<SimulationError>(&run)) return *err;
        totals[call ? 0 : 1] = std::get<CachegrindTotals>(run).total;
    }
    CacheCounts c = difference(totals[0], totals[1]);
    double px = double(target.dim) * double(target.dim);
    return CounterValues{{"D1 rd miss/px (sim)", double(c.D1mr) / px},
                         {"D1 wr miss/px (sim)", double(c.D1mw) / px},
                         {"LL miss/px (sim)", double(c.DLmr + c.DLmw) / px},
                         {"Ir/px (sim)", double(c.Ir) / px}};
}

std::variant<CachegrindGeometry, SimulationError> simulation_geometry(const MachineInfo& machine,
                                                                 const std::string& probe_path) {
    auto geometry = geometry_from_machine(machine);
    auto* g = std::get_if<CachegrindGeometry>(&geometry);
    std::optional<L1Geometry> l1 = l1_geometry(machine, probe_path);
    if (!g || !l1 || !l1->measured) return geometry;
    SimulatedCache measured{l1->bytes, g->D1.assoc, l1->line};
    if (measured == g->D1 || cachegrind_geometry_error(measured)) return geometry;
    g->D1 = measured;
    g->source += fmt::format("; D1 size and line {}", l1->source);
    return geometry;
}

std::string describe_geometry(const CachegrindGeometry& g) {
    return fmt::format("D1={},{},{}:LL={},{},{} ({})", g.D1.size, g.D1.assoc, g.D1.line, g.LL.size, g.LL.assoc, g.LL.line,
                       g.source);
}

std::optional<SimulationError> simulate_variant(const std::string& host_exe, const HostFunction& fn,
                                                VariantResult& result, const CachegrindGeometry& geometry) {
    if (!result.correct) return std::nullopt;
    for (auto& d : result.dims) {
        auto sim = simulate({host_exe, fn, d.dim}, geometry);
        if (auto* err = std::get_if<SimulationError>(&sim)) return *err;
        d.simulated = std::get<CounterValues>(sim);
    }
    return std::nullopt;
}

std::variant<CachegrindGeometry, SimulationError> chosen_geometry(const std::optional<std::string>& spec,
                                                                 const MachineInfo& machine) {
    return spec ? parse_cache_geometry(*spec) : simulation_geometry(machine);
}

}  // namespace perflab
