// --explain's measurements: the runner's timings and checks at the comparison
// dimension, the per-pixel work and misses of every variant, the oracle and the
// reference kernel, what rotate()/smooth() resolve to, the tile sweep and the
// state of the machine. Nothing here judges; explain_checks.cpp does.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <functional>
#include <set>
#include <map>
#include <thread>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include "common/statistics.hpp"
#include "explain.hpp"
#include "driver/core/checker.hpp"
#include "driver/evidence/page_faults.hpp"
#include "driver/evidence/simulation.hpp"
#include "signatures.hpp"
#include "driver/evidence/symbol_table.hpp"

namespace perflab {
namespace {

constexpr int kIdleWindowMs = 300;

// A function of the plan by its position: (kernel, variant). Variant::index does not
// tell functions apart: every unregistered candidate has the same one.
using PlanSlot = std::pair<std::size_t, std::size_t>;

void progress(const std::string& what) {
    // Explain takes tens of seconds: say what it is doing, but only to a person.
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "explain: %s...\n", what.c_str());
}

// A thin wrapper compiles to a jump: endbr64 (when built with CET), then jmp rel32
// or rel8. The code is read from the running host, named from its `symbols`.
std::optional<std::string> jump_target(KernelHost& host, const std::vector<CodeSymbol>& symbols, std::uint64_t fn) {
    unsigned char code[16];
    try {
        host.read(fn, code);
    } catch (const HostError&) {
        return std::nullopt;
    }
    std::size_t at = std::memcmp(code, "\xf3\x0f\x1e\xfa", 4) == 0 ? 4 : 0;
    std::optional<std::uint64_t> target;
    if (code[at] == 0xe9) {
        std::int32_t rel;
        std::memcpy(&rel, code + at + 1, sizeof rel);
        target = fn + at + 5 + std::uint64_t(std::int64_t(rel));
    } else if (code[at] == 0xeb) {
        target = fn + at + 2 + std::uint64_t(std::int64_t(static_cast<std::int8_t>(code[at + 1])));
    }
    const CodeSymbol* s = target ? symbol_containing(symbols, *target) : nullptr;
    return s ? std::optional(s->name) : std::nullopt;
}

// Where the per-pixel figures come from: the counters read around the timed
// calls, or a cachegrind run per function (at one dimension: it is slow).
class FigureSource {
public:
    FigureSource(const ExplainSetup& s, ExplainData& data) : setup_(s), data_(data) {
        if (s.tools.counters) {
            data.figures_source = "PMU counters";
            return;
        }
        auto g = chosen_geometry(s.plan.cache_geometry, s.run.machine);
        if (auto* err = std::get_if<SimulationError>(&g)) {
            data.figures_unavailable = err->message;
            return;
        }
        geometry_ = std::get<CachegrindGeometry>(g);
        data.geometry_given = s.plan.cache_geometry.has_value();
        data.figures_source = "cachegrind simulation, " + describe_geometry(*geometry_);
    }

    // Simulates every target, as many at once as there are CPUs: each is two
    // valgrind runs of a kernel host, and the timing is over by now.
    // `extra` jobs (the access traces) share the pool: both are valgrind runs.
    void simulate_all(const std::vector<SimulationTarget>& targets, const std::vector<PlanSlot>& keys,
                      std::vector<std::function<void()>> extra = {}) {
        const bool simulating = !setup_.tools.counters && geometry_ && !targets.empty();
        std::vector<std::variant<CounterValues, SimulationError>> out(simulating ? targets.size() : 0);
        std::vector<std::function<void()>> jobs;
        for (std::size_t i = 0; i < out.size(); ++i) jobs.push_back([&, i] { out[i] = simulate(targets[i], *geometry_); });
        for (auto& e : extra) jobs.push_back(std::move(e));
        if (jobs.empty()) return;
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t i; (i = next++) < jobs.size();) jobs[i]();
        };
        const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(jobs.size()));
        std::vector<std::thread> pool;
        for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work);
        for (auto& t : pool) t.join();
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (auto* err = std::get_if<SimulationError>(&out[i])) {
                data_.figures_unavailable = "cache simulation failed: " + err->message;
                simulated_.clear();
                return;
            }
            simulated_[keys[i]] = figures_from(std::get<CounterValues>(out[i]));
        }
    }

    // `timed` holds the counters of the sample K-best kept.
    CacheFigures of(const DimResult* timed, PlanSlot slot) const {
        if (setup_.tools.counters) return timed ? figures_from(timed->counters) : CacheFigures{};
        auto it = simulated_.find(slot);
        return it == simulated_.end() ? CacheFigures{} : it->second;
    }

private:
    const ExplainSetup& setup_;
    ExplainData& data_;
    std::optional<CachegrindGeometry> geometry_;
    std::map<PlanSlot, CacheFigures> simulated_;
};

// rotate()/smooth() is measured even when it is not registered (or --variant left
// it out): it is what the grader times. The oracle and the reference kernel run as
// variants too, so they are timed and counted exactly like the student's.
Plan with_comparisons(Plan plan, const Registry& registry, bool references, const std::vector<Variant>& unregistered) {
    for (auto& kp : plan.kernels) {
        auto same = [&](const Variant& v) { return v.address == kp.graded_address; };
        if (!std::any_of(kp.variants.begin(), kp.variants.end(), same)) {
            auto registered = registry.of(kp.kernel);
            auto it = std::find_if(registered.begin(), registered.end(), same);
            kp.variants.push_back(it != registered.end() ? *it : unregistered_graded(kp.kernel, kp.graded_address));
        }
        kp.variants.push_back({kp.kernel, 0, "naive oracle", Variant::kOracle});
        if (!references) continue;
        if (kp.kernel == Kernel::rotate)
            kp.variants.push_back({kp.kernel, 0, "reference blocked rotate", Variant::kReferenceBlocked});
        else
            kp.variants.push_back({kp.kernel, 0, "reference two-pass smooth", Variant::kReferenceTwoPass});
    }
    // Last, so that when their turn comes every other function's trace is in and
    // one that is only a registered variant's helper can be left out.
    for (auto& kp : plan.kernels)
        for (const auto& v : unregistered)
            if (v.kernel == kp.kernel) kp.variants.push_back(v);
    return plan;
}

bool is_comparison(const Variant& v) {
    return v.index == Variant::kOracle || v.index == Variant::kReferenceBlocked || v.index == Variant::kReferenceTwoPass;
}

// The run's best, as a normal run's summary has it: among the registered variants
// and rotate()/smooth(), never a function only --explain times.
std::optional<std::size_t> fastest(const KernelEvidence& e) {
    const auto& variants = e.result.variants;
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < variants.size(); ++i)
        if ((variants[i].graded || e.registered(i)) && variants[i].complete() &&
            (!best || variants[i].mean_speedup > variants[*best].mean_speedup))
            best = i;
    return best;
}

// Rotate's order shows at the comparison dimension (capped where an image no
// longer fits one 2 MiB region of the host's, which the trace analysis assumes);
// smooth's code facts are per pixel and show at any size.
int trace_dim(Kernel k, int dim) { return k == Kernel::rotate ? std::min(dim, 512) : std::min(dim, 64); }

// Dimensions a failing kernel is checked at: multiples of 32 (the lab's), of 8
// but not 32, and odd-ish ones.
constexpr int kCheckDims[] = {32, 64, 96, 100, 120, 128, 130, 192, 200, 256, 512};

// Where a function the host calls lives in it: registered ones and rotate()/smooth()
// report their address; the driver's own are found in the reference host's table.
std::uint64_t entry_of(const Variant& v, const KernelPlan& kp, KernelHosts& hosts) {
    if (v.index == Variant::kGraded) return kp.graded_address;
    if (!v.in_reference_host()) return v.address;
    const HostFunction f = v.host_function();
    for (const auto& hv : hosts.reference().registration().variants)
        if (hv.kernel == f.kernel && hv.index == f.variant) return hv.address;
    return 0;
}

std::optional<double> faults_of(KernelHost& host, const Variant& v, int dim, unsigned timeout_seconds) {
    try {
        return page_faults_per_call(host, v.host_function(), dim, timeout_seconds);
    } catch (const HostError&) {
        return std::nullopt;
    }
}

bool named_like(const std::string& symbol, Kernel k) {
    std::string s = symbol;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s.find(kernel_name(k)) != std::string::npos && s.find("naive") == std::string::npos &&
           s.find("register") == std::string::npos && s != kernel_name(k);
}

// Functions of the student's named like a kernel that nothing registered and that
// are not rotate()/smooth(). Those whose debug information declares a kernel's
// parameters become variants of the plan, checked and timed like the registered
// ones; the rest (no debug information) are only named.
struct Unregistered {
    std::vector<Variant> callable;
    std::vector<std::pair<Kernel, std::string>> uncalled;
    std::optional<std::string> why_uncalled;
};

Unregistered unregistered_functions(const ExplainSetup& s, KernelHosts& hosts) {
    Unregistered out;
    std::set<std::string> driver_own;
    for (const auto& sym : function_symbols(hosts.reference().executable())) driver_own.insert(sym.name);
    const auto shaped = kernel_shaped_functions_of(hosts.student().executable());
    if (auto* none = std::get_if<NoDebugInfo>(&shaped)) out.why_uncalled = none->reason;
    const auto student_symbols = function_symbols(hosts.student().executable());
    std::set<std::string> seen;
    for (const auto& kp : s.plan.kernels) {
        std::set<std::uint64_t> known{kp.graded_address};
        for (const auto& v : s.registry.of(kp.kernel)) known.insert(v.address);
        for (const auto& sym : student_symbols) {
            if (!named_like(sym.name, kp.kernel) || known.count(sym.start) || driver_own.count(sym.name) ||
                !seen.insert(sym.name).second)
                continue;
            if (auto* names = std::get_if<std::set<std::string>>(&shaped)) {
                if (names->count(sym.name))
                    out.callable.push_back({kp.kernel, sym.start, sym.name + ": in the binary, not registered",
                                            Variant::kUnregistered});
            } else {
                out.uncalled.emplace_back(kp.kernel, sym.name);
            }
        }
    }
    return out;
}

}  // namespace

Noise timing_noise(const std::vector<double>& cpes) {
    Noise n;
    n.samples = int(cpes.size());
    if (const double s = relative_spread(cpes); std::isfinite(s)) n.spread = s;
    // With fewer than 3 repeats the spread says little: assume the shared-VM
    // noise seen in practice (25%). Never trust less than 5%.
    n.tolerance = n.samples >= 3 ? std::max(0.05, n.spread) : std::max(0.25, n.spread);
    return n;
}

SpeedupGap compare_speedups(double a, double b, const Noise& noise, bool converged) {
    SpeedupGap c;
    c.ratio = b > 0 ? a / b : 0;
    c.tolerance = converged ? noise.tolerance : 2 * noise.tolerance;
    c.resolved = b > 0 && a > 0 && (c.ratio > 1 + c.tolerance || c.ratio < 1 / (1 + c.tolerance));
    return c;
}

bool speedup_intervals_overlap(const DimResult& a, const DimResult& b) {
    if (a.speedup_high <= 0 || b.speedup_high <= 0) return false;
    return a.speedup_low <= b.speedup_high && b.speedup_low <= a.speedup_high;
}

Options explain_options(const Options& options) {
    Options o = options;
    // Whether --dims was given, not whether the list differs from the default: a
    // TA who types the lab's own dimensions asks for exactly those.
    if (!o.dims_chosen) o.rotate_dims = o.smooth_dims = {kExplainDim};
    return o;
}

namespace {

// The run's timings, and where each function's row at the comparison dimension is.
struct Timings {
    Plan plan;
    std::vector<KernelResult> results;
    std::vector<int> dims;        // per kernel: the comparison dimension, the largest planned
    std::vector<std::size_t> at;  // per kernel: its position in the kernel's dims
    const DimResult* timed(std::size_t k, std::size_t v) const {
        const VariantResult& vr = results[k].variants[v];
        return vr.correct && at[k] < vr.dims.size() ? &vr.dims[at[k]] : nullptr;
    }
};

Timings time_everything(const ExplainSetup& s, Plan plan) {
    Timings t{std::move(plan), {}, {}, {}};
    Runner runner(t.plan, s.tools);
    RunnerObserver observer;
    observer.kernel_started = [](const KernelResult& k) { progress(fmt::format("timing {}", kernel_name(k.kernel))); };
    t.results = runner.run(observer);
    for (const auto& kp : t.plan.kernels) {
        t.dims.push_back(kp.dims.empty() ? 0 : *std::max_element(kp.dims.begin(), kp.dims.end()));
        t.at.push_back(std::size_t(std::find(kp.dims.begin(), kp.dims.end(), t.dims.back()) - kp.dims.begin()));
    }
    return t;
}

// The student host's functions, read once: every name comes from them.
struct StudentCode {
    std::vector<CodeSymbol> symbols;
    std::string name_at(std::uint64_t address) const {
        const CodeSymbol* s = symbol_containing(symbols, address);
        return s ? s->name : std::string();
    }
};

std::string symbol_of(const StudentCode& code, const Variant& v, const KernelPlan& kp) {
    if (v.in_reference_host()) return {};
    return code.name_at(v.index == Variant::kGraded ? kp.graded_address : v.address);
}

// rotate()/smooth() that is a tail call to another planned function runs that
// function's code: it is simulated, traced and checked once, as that function.
std::map<PlanSlot, PlanSlot> same_code_slots(const Timings& t, const StudentCode& code,
                                             const std::vector<std::optional<std::string>>& jumps) {
    std::map<PlanSlot, PlanSlot> alias;
    for (std::size_t k = 0; k < t.plan.kernels.size(); ++k) {
        const KernelPlan& kp = t.plan.kernels[k];
        for (std::size_t g = 0; g < kp.variants.size() && jumps[k]; ++g) {
            if (kp.variants[g].address != kp.graded_address && kp.variants[g].index != Variant::kGraded) continue;
            for (std::size_t v = 0; v < kp.variants.size(); ++v)
                if (v != g && !kp.variants[v].in_reference_host() && symbol_of(code, kp.variants[v], kp) == *jumps[k])
                    alias[{k, g}] = {k, v};
        }
    }
    return alias;
}

// The L1d the access traces simulate: the given geometry's, else this machine's.
std::optional<SimulatedCache> trace_cache(const ExplainSetup& s, ExplainData& data) {
    auto g = chosen_geometry(s.plan.cache_geometry, s.run.machine);
    auto* geometry = std::get_if<CachegrindGeometry>(&g);
    if (!geometry) {
        data.trace_unavailable = std::get<SimulationError>(g).message;
        return std::nullopt;
    }
    // The traces' lines are the given cache's: the findings read from them must reason with its line.
    if (s.plan.cache_geometry)
        data.given_l1 = L1Geometry{geometry->D1.size, geometry->D1.line,
                                   "given by --cache-geometry " + *s.plan.cache_geometry, false};
    return geometry->D1;
}

// Cache figures and access traces of every correct function, once per function
// (an alias shares its target's), all in one pool of valgrind runs.
class CodeFigures {
public:
    CodeFigures(const ExplainSetup& s, ExplainData& data, const Timings& t, std::map<PlanSlot, PlanSlot> alias)
        : data_(data), figures_(s, data), alias_(std::move(alias)) {
        KernelHosts& hosts = s.tools.hosts;
        const std::optional<SimulatedCache> d1 = trace_cache(s, data);
        std::vector<SimulationTarget> targets;
        std::vector<PlanSlot> keys;
        std::vector<std::pair<PlanSlot, TraceTarget>> traces;
        for (std::size_t k = 0; k < t.plan.kernels.size(); ++k)
            for (std::size_t v = 0; v < t.plan.kernels[k].variants.size(); ++v) {
                if (!t.timed(k, v) || alias_.count({k, v})) continue;
                const Variant& variant = t.plan.kernels[k].variants[v];
                const KernelHost& host = variant.in_reference_host() ? hosts.reference() : hosts.student();
                targets.push_back({host.executable(), variant.host_function(), t.dims[k]});
                keys.emplace_back(k, v);
                const std::uint64_t entry = entry_of(variant, t.plan.kernels[k], hosts);
                if (d1 && entry)
                    traces.push_back({{k, v}, {host.executable(), variant.host_function(), entry,
                                               trace_dim(variant.kernel, t.dims[k])}});
            }
        for (const auto& [slot, target] : traces) traced_.emplace(slot, SimulationError{"not traced"});
        std::vector<std::function<void()>> jobs;
        for (std::size_t i = 0; i < traces.size(); ++i)
            jobs.push_back([&, i] { traced_[traces[i].first] = trace_access_pattern(traces[i].second, *d1); });
        progress(fmt::format("per-pixel figures ({}) and access traces",
                             data.figures_source.empty() ? "none" : data.figures_source));
        figures_.simulate_all(targets, keys, std::move(jobs));
    }

    CacheFigures figures(const DimResult* timed, PlanSlot slot) const { return figures_.of(timed, resolve(slot)); }

    std::optional<AccessPattern> pattern(PlanSlot slot) const {
        auto it = traced_.find(resolve(slot));
        if (it == traced_.end()) return std::nullopt;
        if (auto* err = std::get_if<SimulationError>(&it->second)) {
            data_.trace_unavailable = "access trace failed: " + err->message;
            return std::nullopt;
        }
        return std::get<AccessPattern>(it->second);
    }

    PlanSlot resolve(PlanSlot slot) const {
        auto it = alias_.find(slot);
        return it == alias_.end() ? slot : it->second;
    }

private:
    ExplainData& data_;
    FigureSource figures_;
    std::map<PlanSlot, PlanSlot> alias_;
    std::map<PlanSlot, std::variant<AccessPattern, SimulationError>> traced_;
};

// A failing function checked at more dimensions. A hang costs one timeout: the
// dimensions after it are not tried (a kernel that never returns at one size
// says nothing more at the next).
std::vector<DimCheck> check_dims(const ExplainSetup& s, const Variant& variant) {
    progress(fmt::format("checking {} at more dimensions", short_name(variant.description)));
    std::vector<DimCheck> checks;
    for (int dim : kCheckDims) {
        std::optional<CheckFailure> failure;
        try {
            failure = check_variant(s.tools.hosts.student(), variant.host_function(), dim, s.tools.inputs,
                                    s.plan.timeout_seconds);
        } catch (const HostError& err) {
            failure = CheckFailure{CheckFailure::Kind::crashed, dim, 0, 0, {}, err.what(), false};
        }
        checks.push_back({dim, !failure, failure ? failure->kind_id() : "", failure ? failure->describe() : ""});
        if (failure && failure->kind == CheckFailure::Kind::timed_out) break;
    }
    return checks;
}

// What measure_for_explain assembles one kernel's evidence from.
struct Assembly {
    const ExplainSetup& s;
    const Timings& t;
    const CodeFigures& code;
    const StudentCode& student;
    std::map<PlanSlot, std::vector<DimCheck>> dim_checks;  // per checked function, shared by its aliases
};

// The oracle or the reference kernel, timed as a variant of the plan.
FunctionEvidence comparison_evidence(Assembly& a, std::size_t k, std::size_t v) {
    const DimResult* d = a.t.timed(k, v);
    FunctionEvidence fe{a.t.results[k].variants[v].name, d ? std::optional(d->cpe) : std::nullopt,
                        !d || d->converged, a.code.figures(d, {k, v}), std::nullopt, a.code.pattern({k, v}),
                        std::nullopt, std::nullopt};
    if (d && d->speedup_high > d->speedup_low) fe.interval = std::pair(d->speedup_low, d->speedup_high);
    if (d)
        fe.faults_per_call =
            faults_of(a.s.tools.hosts.reference(), a.t.plan.kernels[k].variants[v], a.t.dims[k], a.s.plan.timeout_seconds);
    return fe;
}

// A function of the student's: its row, figures, trace, symbol, faults and checks.
void add_student_function(Assembly& a, KernelEvidence& e, std::size_t k, std::size_t v, std::string symbol) {
    const Variant& variant = a.t.plan.kernels[k].variants[v];
    const DimResult* d = a.t.timed(k, v);
    if (variant.index == Variant::kUnregistered) e.unregistered.push_back({symbol, e.result.variants.size()});
    e.result.variants.push_back(a.t.results[k].variants[v]);
    e.figures.push_back(a.code.figures(d, {k, v}));
    e.patterns.push_back(a.code.pattern({k, v}));
    e.symbols.push_back(std::move(symbol));
    e.faults_per_call.push_back(d ? faults_of(a.s.tools.hosts.student(), variant, a.t.dims[k], a.s.plan.timeout_seconds)
                                  : std::nullopt);
    std::vector<DimCheck> checks;
    if (!a.t.results[k].variants[v].correct) {
        const PlanSlot slot = a.code.resolve({k, v});
        auto it = a.dim_checks.find(slot);
        if (it == a.dim_checks.end()) it = a.dim_checks.emplace(slot, check_dims(a.s, variant)).first;
        checks = it->second;
    }
    e.dim_checks.push_back(std::move(checks));
}

KernelEvidence kernel_evidence(Assembly& a, std::size_t k, std::vector<TilePoint> sweep,
                               const std::vector<std::pair<Kernel, std::string>>& uncalled) {
    const KernelPlan& kp = a.t.plan.kernels[k];
    KernelEvidence e;
    e.kernel = kp.kernel;
    e.dim = a.t.dims[k];
    e.graded_symbol = a.student.name_at(kp.graded_address);
    e.graded_jumps_to = jump_target(a.s.tools.hosts.student(), a.student.symbols, kp.graded_address);
    e.tile_sweep = std::move(sweep);
    e.result = a.t.results[k];
    e.result.variants.clear();
    std::vector<double> oracle_cpes;
    std::set<std::string> reached;  // functions the traced calls executed
    for (std::size_t v = 0; v < kp.variants.size(); ++v) {
        if (const auto& all = a.t.results[k].variants[v]; a.t.at[k] < all.dims.size())
            if (const DimResult& row = all.dims[a.t.at[k]]; row.baseline_cpe > 0) oracle_cpes.push_back(row.baseline_cpe);
        const Variant& variant = kp.variants[v];
        const std::string symbol = symbol_of(a.student, variant, kp);
        // A helper that some traced function runs is not a candidate of its own.
        if (variant.index == Variant::kUnregistered && reached.count(symbol)) continue;
        if (variant.index == Variant::kGraded) e.graded_registered = false;
        if (const auto p = a.code.pattern({k, v}); p && !variant.in_reference_host())
            reached.insert(p->executed.begin(), p->executed.end());
        if (!is_comparison(variant))
            add_student_function(a, e, k, v, symbol);
        else if (variant.index == Variant::kOracle)
            e.naive = comparison_evidence(a, k, v);
        else
            e.reference = comparison_evidence(a, k, v);
    }
    e.result.best = fastest(e);
    if (e.naive.cpe) oracle_cpes.push_back(*e.naive.cpe);
    // The driver's own functions are timed without a baseline: their speedup
    // is the oracle's CPE over theirs, both from this run.
    if (e.reference && e.reference->cpe && e.naive.cpe && *e.reference->cpe > 0)
        e.reference->speedup = *e.naive.cpe / *e.reference->cpe;
    e.noise = timing_noise(oracle_cpes);
    for (const auto& [kernel, name] : uncalled)
        if (kernel == kp.kernel && !reached.count(name)) e.unregistered.push_back({name, std::nullopt});
    return e;
}

}  // namespace

ExplainData measure_for_explain(const ExplainSetup& s) {
    ExplainData data;
    data.kbest = s.plan.kbest;
    data.pinned_cpu = s.run.clock.pinned_cpu;
    data.pin_error = s.run.clock.pin_error;
    data.counters_unavailable = s.run.counters_unavailable;
    data.build = read_build_state(s.student.build);
    data.l1 = l1_geometry(s.run.machine);
    KernelHosts& hosts = s.tools.hosts;
    const bool references = hosts.has_references();
    data.reference_kernels = references;

    // Before any timing, while the driver itself is idle: who else uses the CPU.
    progress("watching the CPU for other work");
    data.system = read_system_state(s.run.clock.pinned_cpu, kIdleWindowMs);

    const Unregistered unregistered = unregistered_functions(s, hosts);
    data.unregistered_uncalled = unregistered.why_uncalled;
    const Timings t = time_everything(s, with_comparisons(s.plan, s.registry, references, unregistered.callable));

    std::vector<std::vector<TilePoint>> sweeps(t.plan.kernels.size());
    for (std::size_t k = 0; k < t.plan.kernels.size(); ++k)
        if (references && t.plan.kernels[k].kernel == Kernel::rotate && t.dims[k] > 0) {
            progress(fmt::format("sweeping the reference rotate's tile edge at {}", t.dims[k]));
            sweeps[k] = sweep_reference_tiles(t.plan, s.tools, t.dims[k]);
        }

    const StudentCode student{function_symbols(hosts.student().executable())};
    std::vector<std::optional<std::string>> jumps;
    for (const auto& kp : t.plan.kernels) jumps.push_back(jump_target(hosts.student(), student.symbols, kp.graded_address));
    const CodeFigures code(s, data, t, same_code_slots(t, student, jumps));
    Assembly assembly{s, t, code, student, {}};
    for (std::size_t k = 0; k < t.plan.kernels.size(); ++k)
        if (!t.plan.kernels[k].dims.empty())
            data.kernels.push_back(kernel_evidence(assembly, k, std::move(sweeps[k]), unregistered.uncalled));
    return data;
}

bool KernelEvidence::registered(std::size_t i) const {
    if (i < result.variants.size() && result.variants[i].graded && !graded_registered) return false;
    return std::none_of(unregistered.begin(), unregistered.end(), [i](const auto& u) { return u.variant == i; });
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
