// --explain's measurements: the runner's timings and checks at the comparison
// dimension, the per-pixel work and misses of every variant, the oracle and the
// reference kernel, what rotate()/smooth() resolve to, the tile sweep and the
// state of the machine. Nothing here judges; explain_checks.cpp does.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include "explain.hpp"
#include "reference_catalog.hpp"
#include "simulation.hpp"
#include "symbols.hpp"

namespace perflab {
namespace {

constexpr int kIdleWindowMs = 300;

void progress(const std::string& what) {
    // Explain takes tens of seconds: say what it is doing, but only to a person.
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "explain: %s...\n", what.c_str());
}

// A thin wrapper compiles to a jump: endbr64 (when built with CET), then jmp rel32 or rel8.
std::optional<std::string> jump_target(lab_test_func fn) {
    const auto* p = reinterpret_cast<const unsigned char*>(fn);
    if (std::memcmp(p, "\xf3\x0f\x1e\xfa", 4) == 0) p += 4;
    const unsigned char* target = nullptr;
    if (p[0] == 0xe9) {
        std::int32_t rel;
        std::memcpy(&rel, p + 1, sizeof rel);
        target = p + 5 + rel;
    } else if (p[0] == 0xeb) {
        target = p + 2 + static_cast<std::int8_t>(p[1]);
    }
    return target ? symbol_name_for(target) : std::nullopt;
}

// Where the per-pixel figures come from: the counters read around the timed
// calls, or a cachegrind run per function (at one dimension: it is slow).
class FigureSource {
public:
    FigureSource(const ExplainSetup& s, ExplainData& data) : setup_(s), data_(data) {
        if (s.counters) {
            data.figures_source = "PMU counters";
            return;
        }
        auto g = s.options.cache_geometry ? parse_cache_geometry(*s.options.cache_geometry)
                                          : simulation_geometry(s.run.machine);
        if (auto* err = std::get_if<SimulationError>(&g)) {
            data.figures_unavailable = err->message;
            return;
        }
        geometry_ = std::get<CacheGeometry>(g);
        data.figures_source = "cachegrind simulation, " + describe_geometry(*geometry_);
    }

    // Simulates every target, as many at once as there are CPUs: each is two
    // valgrind runs of the driver, and the timing is over by now.
    void simulate_all(const std::vector<SimulationTarget>& targets) {
        if (setup_.counters || !geometry_ || targets.empty()) return;
        std::vector<std::variant<CounterValues, SimulationError>> out(targets.size());
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t i; (i = next++) < targets.size();)
                out[i] = simulate(setup_.driver_exe, targets[i], *geometry_);
        };
        const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(targets.size()));
        std::vector<std::thread> pool;
        for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work);
        for (auto& t : pool) t.join();
        for (std::size_t i = 0; i < targets.size(); ++i) {
            if (auto* err = std::get_if<SimulationError>(&out[i])) {
                data_.figures_unavailable = "cache simulation failed: " + err->message;
                simulated_.clear();
                return;
            }
            simulated_[{targets[i].kernel, targets[i].index}] = figures_from(std::get<CounterValues>(out[i]));
        }
    }

    // `timed` holds the counters of the sample K-best kept.
    CacheFigures of(const DimResult* timed, Kernel kernel, int index) const {
        if (setup_.counters) return timed ? figures_from(timed->counters) : CacheFigures{};
        auto it = simulated_.find({kernel, index});
        return it == simulated_.end() ? CacheFigures{} : it->second;
    }

private:
    const ExplainSetup& setup_;
    ExplainData& data_;
    std::optional<CacheGeometry> geometry_;
    std::map<std::pair<Kernel, int>, CacheFigures> simulated_;
};

// rotate()/smooth() is measured even when it is not registered (or --variant left
// it out): it is what the grader times. The oracle and the reference kernel run as
// variants too, so they are timed and counted exactly like the student's.
Plan with_comparisons(Plan plan, const Registry& registry, const ReferenceCatalog* catalog) {
    for (auto& kp : plan.kernels) {
        auto same = [&](const Variant& v) { return v.fn == kp.graded_fn; };
        if (!std::any_of(kp.variants.begin(), kp.variants.end(), same)) {
            auto registered = registry.of(kp.kernel);
            auto it = std::find_if(registered.begin(), registered.end(), same);
            kp.variants.push_back(it != registered.end()
                                      ? *it
                                      : Variant{kp.kernel, kp.graded_fn,
                                                fmt::format("{}(): graded, not registered", kernel_name(kp.kernel)),
                                                Variant::kGraded});
        }
        kp.variants.push_back({kp.kernel, oracle_for(kp.kernel), "naive oracle", Variant::kOracle});
        if (!catalog) continue;
        if (kp.kernel == Kernel::rotate)
            kp.variants.push_back({kp.kernel, catalog->rotate_blocked, catalog->rotate_blocked_name,
                                   Variant::kReferenceBlocked});
        else
            kp.variants.push_back({kp.kernel, catalog->smooth_two_pass, catalog->smooth_two_pass_name,
                                   Variant::kReferenceTwoPass});
    }
    return plan;
}

bool is_comparison(const Variant& v) {
    return v.index == Variant::kOracle || v.index == Variant::kReferenceBlocked || v.index == Variant::kReferenceTwoPass;
}

std::optional<std::size_t> fastest(const std::vector<VariantResult>& variants) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (variants[i].complete() && (!best || variants[i].mean_speedup > variants[*best].mean_speedup)) best = i;
    return best;
}

}  // namespace

Options explain_options(const Options& options) {
    Options o = options;
    const Options defaults;
    if (o.rotate_dims == defaults.rotate_dims) o.rotate_dims = {kExplainDim};
    if (o.smooth_dims == defaults.smooth_dims) o.smooth_dims = {kExplainDim};
    return o;
}

ExplainData measure_for_explain(const ExplainSetup& s) {
    ExplainData data;
    data.kbest = s.plan.kbest;
    data.pinned_cpu = s.run.clock.pinned_cpu;
    data.pin_error = s.run.clock.pin_error;
    data.counters_unavailable = s.run.counters_unavailable;
    data.build = read_build_state(s.student.build);
    data.l1 = l1_geometry(s.run.machine);
    const ReferenceCatalog* catalog = reference_catalog();
    data.reference_kernels = catalog != nullptr;

    // Before any timing, while the driver itself is idle: who else uses the CPU.
    progress("watching the CPU for other work");
    data.system = read_system_state(s.run.clock.pinned_cpu, kIdleWindowMs);

    const Plan plan = with_comparisons(s.plan, s.registry, catalog);
    Runner runner(plan, s.clock, s.clearer, s.counters);
    RunnerObserver observer;
    observer.kernel_started = [](const KernelResult& k) { progress(fmt::format("timing {}", kernel_name(k.kernel))); };
    const std::vector<KernelResult> results = runner.run(observer);

    // Every planned function at the largest planned dimension: the comparison.
    std::vector<int> dims, at;
    for (const auto& kp : plan.kernels) {
        dims.push_back(kp.dims.empty() ? 0 : *std::max_element(kp.dims.begin(), kp.dims.end()));
        at.push_back(int(std::find(kp.dims.begin(), kp.dims.end(), dims.back()) - kp.dims.begin()));
    }
    auto timed = [&](std::size_t k, std::size_t v) -> const DimResult* {
        const VariantResult& vr = results[k].variants[v];
        return vr.correct && std::size_t(at[k]) < vr.dims.size() ? &vr.dims[std::size_t(at[k])] : nullptr;
    };

    std::vector<std::vector<TilePoint>> sweeps(plan.kernels.size());
    for (std::size_t k = 0; k < plan.kernels.size(); ++k)
        if (catalog && plan.kernels[k].kernel == Kernel::rotate && dims[k] > 0) {
            progress(fmt::format("sweeping the reference rotate's tile edge at {}", dims[k]));
            sweeps[k] = sweep_reference_tiles(plan, s.clock, s.clearer, dims[k]);
        }

    FigureSource figures(s, data);
    std::vector<SimulationTarget> targets;
    for (std::size_t k = 0; k < plan.kernels.size(); ++k)
        for (std::size_t v = 0; v < plan.kernels[k].variants.size(); ++v)
            if (timed(k, v)) targets.push_back({plan.kernels[k].kernel, plan.kernels[k].variants[v].index, dims[k], plan.seed});
    progress(fmt::format("per-pixel figures ({})", data.figures_source.empty() ? "none" : data.figures_source));
    figures.simulate_all(targets);

    for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
        const KernelPlan& kp = plan.kernels[k];
        if (kp.dims.empty()) continue;
        KernelEvidence e;
        e.kernel = kp.kernel;
        e.dim = dims[k];
        e.graded_symbol = symbol_name_for(reinterpret_cast<const void*>(kp.graded_fn)).value_or("");
        e.graded_jumps_to = jump_target(kp.graded_fn);
        e.tile_sweep = std::move(sweeps[k]);
        e.result = results[k];
        e.result.variants.clear();
        for (std::size_t v = 0; v < kp.variants.size(); ++v) {
            const DimResult* d = timed(k, v);
            CacheFigures f = figures.of(d, kp.kernel, kp.variants[v].index);
            if (kp.variants[v].index == Variant::kGraded) e.graded_registered = false;
            if (!is_comparison(kp.variants[v])) {
                e.result.variants.push_back(results[k].variants[v]);
                e.figures.push_back(std::move(f));
                continue;
            }
            FunctionEvidence fe{results[k].variants[v].name, d ? std::optional(d->cpe) : std::nullopt,
                                !d || d->converged, std::move(f)};
            if (kp.variants[v].index == Variant::kOracle)
                e.naive = std::move(fe);
            else
                e.reference = std::move(fe);
        }
        e.result.best = fastest(e.result.variants);
        data.kernels.push_back(std::move(e));
    }
    return data;
}

CacheFigures figures_from(const CounterValues& rows) {
    CacheFigures f;
    for (const auto& [label, value] : rows) {
        if (label == "D1 rd miss/px (sim)" || label == "L1D miss/px") f.d1_read = value;
        if (label == "D1 wr miss/px (sim)") f.d1_write = value;
        if (label == "LL miss/px (sim)" || label == "LLC miss/px") f.ll = value;
        if (label == "Ir/px (sim)" || label == "instr/px") f.instructions = value;
    }
    return f;
}

std::optional<double> CacheFigures::d1() const {
    if (!d1_read) return std::nullopt;
    return *d1_read + d1_write.value_or(0);
}

}  // namespace perflab
