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

std::string simulation_spec(const SimulationTarget& t, bool call) {
    return fmt::format("{}:{}:{}:{}{}", kernel_name(t.kernel), t.index, t.dim, t.seed, call ? "" : ":setup");
}

std::variant<std::pair<SimulationTarget, bool>, std::string> parse_simulation_spec(const std::string& spec) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t colon; (colon = spec.find(':', start)) != std::string::npos; start = colon + 1)
        parts.push_back(spec.substr(start, colon - start));
    parts.push_back(spec.substr(start));
    if (parts.size() < 4 || parts.size() > 5 || (parts.size() == 5 && parts[4] != "setup"))
        return fmt::format("bad simulation spec '{}'", spec);
    auto kernel = parse_kernel(parts[0]);
    if (!kernel) return fmt::format("bad kernel in simulation spec '{}'", spec);
    try {
        SimulationTarget t{*kernel, std::stoi(parts[1]), std::stoi(parts[2]), unsigned(std::stoul(parts[3]))};
        if (t.dim <= 0) return fmt::format("bad dimension in simulation spec '{}'", spec);
        return std::pair{t, parts.size() == 4};
    } catch (const std::exception&) {
        return fmt::format("bad number in simulation spec '{}'", spec);
    }
}

std::variant<CounterValues, SimulationError> simulate(const std::string& driver_exe, const SimulationTarget& target,
                                                      const CacheGeometry& geometry) {
    CacheCounts totals[2];
    for (bool call : {true, false}) {
        auto run = run_cachegrind({driver_exe, "--simulate-run", simulation_spec(target, call)}, geometry);
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

std::variant<CacheGeometry, SimulationError> simulation_geometry(const MachineInfo& machine,
                                                                 const std::string& probe_path) {
    auto geometry = geometry_from_machine(machine);
    auto* g = std::get_if<CacheGeometry>(&geometry);
    std::optional<L1Geometry> l1 = l1_geometry(machine, probe_path);
    if (!g || !l1 || !l1->measured) return geometry;
    SimulatedCache measured{l1->bytes, g->D1.assoc, l1->line};
    if (measured == g->D1 || cachegrind_geometry_error(measured)) return geometry;
    g->D1 = measured;
    g->source += fmt::format("; D1 size and line {}", l1->source);
    return geometry;
}

std::string describe_geometry(const CacheGeometry& g) {
    return fmt::format("D1={},{},{}:LL={},{},{} ({})", g.D1.size, g.D1.assoc, g.D1.line, g.LL.size, g.LL.assoc, g.LL.line,
                       g.source);
}

}  // namespace perflab

#include "checker.hpp"
#include "plan.hpp"
#include "reference_catalog.hpp"
#include "registry.hpp"
#include "student.hpp"

namespace perflab {

int simulation_child(const std::string& spec, const Registry& registry, const StudentFile& student) {
    auto parsed = parse_simulation_spec(spec);
    if (auto* err = std::get_if<std::string>(&parsed)) {
        std::fprintf(stderr, "%s\n", err->c_str());
        return 2;
    }
    auto [target, call] = std::get<std::pair<SimulationTarget, bool>>(parsed);
    lab_test_func fn = nullptr;
    if (target.index == Variant::kOracle) fn = oracle_for(target.kernel);
    if (target.index == Variant::kGraded) fn = student.graded(target.kernel);
    if (const ReferenceCatalog* ref = reference_catalog()) {
        if (target.index == Variant::kReferenceBlocked && target.kernel == Kernel::rotate) fn = ref->rotate_blocked;
        if (target.index == Variant::kReferenceTwoPass && target.kernel == Kernel::smooth) fn = ref->smooth_two_pass;
    }
    auto variants = registry.of(target.kernel);
    if (target.index >= 0 && target.index < int(variants.size())) fn = variants[std::size_t(target.index)].fn;
    if (!fn) {
        std::fprintf(stderr, "no %s variant %d\n", std::string(kernel_name(target.kernel)).c_str(), target.index);
        return 2;
    }
    Trial trial(target.dim);
    std::mt19937_64 rng(target.seed);
    trial.prepare(rng);
    if (!call) return 0;
    CallOutcome outcome = trial.run(fn, 0);
    if (!outcome.ok()) {
        std::fprintf(stderr, "the variant %s\n", outcome.describe().c_str());
        return 3;
    }
    return 0;
}

std::optional<SimulationError> simulate_variant(const Variant& variant, VariantResult& result, unsigned seed,
                                                const std::string& driver_exe, const CacheGeometry& geometry) {
    if (!result.correct) return std::nullopt;
    for (auto& d : result.dims) {
        auto sim = simulate(driver_exe, {variant.kernel, variant.index, d.dim, seed}, geometry);
        if (auto* err = std::get_if<SimulationError>(&sim)) return *err;
        d.simulated = std::get<CounterValues>(sim);
    }
    return std::nullopt;
}

}  // namespace perflab
