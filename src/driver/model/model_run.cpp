#include "model_run.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <thread>
#include <vector>

#include "callgrind_profile.hpp"
#include "common/affinity.hpp"
#include "common/client_request.hpp"
#include "common/statistics.hpp"
#include "driver/core/input_generator.hpp"
#include "driver/core/kernel.hpp"
#include "model_cost.hpp"

namespace perflab {
namespace {

// kernel-host's function around the one call the model counts (src/host/kernel_host.c).
constexpr const char* kModelledCall = "perflab_host_modelled_call";
constexpr int kOracleIndex = 0;  // PERFLAB_REF_ORACLE (reference_host.h)

std::vector<pixel> model_input(const MachineModel& model, int dim) {
    std::vector<pixel> src(std::size_t(dim) * std::size_t(dim));
    InputGenerator(model.seed).fill(src);
    return src;
}

std::string as_bytes(const std::vector<pixel>& image) {
    return std::string(reinterpret_cast<const char*>(image.data()), image.size() * sizeof(pixel));
}

}  // namespace

ModelRunner::ModelRunner(MachineModel model, HostLaunch reference, std::vector<int> cpus)
    : model_(std::move(model)), reference_(std::move(reference)), cpus_(std::move(cpus)) {}

std::variant<const ModelRunner::HostCode*, SimulationError> ModelRunner::code(const std::string& executable) {
    auto& slot = code_[executable];
    if (slot) return slot.get();
    auto listed = disassemble(executable);
    if (auto* err = std::get_if<SimulationError>(&listed)) return *err;
    auto host = std::make_unique<HostCode>();
    host->code = std::move(std::get<Disassembly>(listed));
    try {
        if (auto at = find_client_request_in_file(executable))
            host->refusal = fmt::format("its binary holds valgrind's client-request preamble (at byte {}), with which "
                                        "code can change what the simulator counts",
                                        *at);
    } catch (const std::exception& e) {
        return SimulationError{e.what()};
    }
    // callgrind counts from the entry of every function of this name: a kernels file
    // that defines one too would turn the counting off inside its own.
    auto named = host->code.functions.find(kModelledCall);
    if (!host->refusal && (named == host->code.functions.end() || named->second != 1))
        host->refusal = fmt::format("its binary has {} functions named {}, the one the model counts from: rename "
                                    "the kernels file's",
                                    named == host->code.functions.end() ? 0 : named->second, kModelledCall);
    slot = std::move(host);
    return slot.get();
}

ModelRunner::Cycles ModelRunner::cycles_per_pixel(const HostLaunch& host, const HostCode& hc, const HostFunction& fn,
                                                  int dim) const {
    if (hc.refusal) return ModelFlag{*hc.refusal};
    const std::vector<pixel> src = model_input(model_, dim);
    CallgrindRun run;
    run.argv = {host.executable, "--model",
                fmt::format("{}:{}:{}:{}", fn.kernel == Kernel::rotate ? 0 : 1, fn.variant, dim, fn.arg)};
    run.collect = kModelledCall;
    run.input = as_bytes(src);
    run.sandbox = host.sandbox;
    auto ran = run_callgrind(run, model_);
    if (auto* err = std::get_if<SimulationError>(&ran)) return *err;
    const CallgrindResult& r = std::get<CallgrindResult>(ran);
    // The output under the simulator must be the oracle's on the same input, as it
    // was on the machine: a kernel that notices valgrind and takes another path shows here.
    std::vector<pixel> expected(src.size());
    std::vector<pixel> input = src;  // the oracle must not see a modified source either
    oracle_for(fn.kernel)(dim, input.data(), expected.data());
    const std::string want = as_bytes(expected);
    if (r.report != want) {
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < src.size(); ++i)
            if (r.report.size() < (i + 1) * sizeof(pixel) ||
                std::memcmp(r.report.data() + i * sizeof(pixel), want.data() + i * sizeof(pixel), sizeof(pixel)) != 0)
                ++wrong;
        return ModelFlag{fmt::format("under the simulator its result at dim {} differs from the oracle's in {} of {} "
                                     "pixels, though it was right on the machine: it runs otherwise under valgrind",
                                     dim, wrong, src.size())};
    }
    if (!r.profile.functions.count(kModelledCall))
        return ModelFlag{fmt::format("the simulator counted nothing of the call at dim {}: the counting was turned off",
                                     dim)};
    auto cycles = modelled_cycles(r.profile, hc.code, model_);
    if (auto* flag = std::get_if<ModelFlag>(&cycles)) return *flag;
    return std::get<double>(cycles) / (double(dim) * double(dim));
}

std::optional<SimulationError> ModelRunner::simulate(std::vector<Simulation>& runs) {
    std::vector<const HostCode*> codes;
    for (const auto& r : runs) {
        auto listed = code(r.host->executable);
        if (auto* err = std::get_if<SimulationError>(&listed)) return *err;
        codes.push_back(std::get<const HostCode*>(listed));
    }
    std::atomic<std::size_t> next{0};
    auto worker = [&](std::size_t k) {
        // The driver pinned itself to its timing CPU; a simulation may run on any of
        // those it could run on before, one per worker.
        if (!cpus_.empty()) pin_this_thread(cpus_[k % cpus_.size()]);
        for (std::size_t i; (i = next++) < runs.size();)
            runs[i].cycles = cycles_per_pixel(*runs[i].host, *codes[i], runs[i].fn, runs[i].dim);
    };
    std::vector<std::thread> workers;
    for (std::size_t k = 0; k < std::min(runs.size(), std::max<std::size_t>(1, cpus_.size())); ++k)
        workers.emplace_back(worker, k);
    for (auto& w : workers) w.join();
    return std::nullopt;
}

std::optional<SimulationError> ModelRunner::measure(const HostLaunch& host, const HostFunction& fn,
                                                    VariantResult& result) {
    if (!result.correct || result.dims.empty()) return std::nullopt;
    // The oracle's dims not modelled yet, then the variant's: all at once.
    std::vector<Simulation> runs;
    for (const auto& d : result.dims)
        if (!oracle_.count({fn.kernel, d.dim})) runs.push_back({&reference_, {fn.kernel, kOracleIndex, 0}, d.dim, 0.0});
    const std::size_t oracle_runs = runs.size();
    for (const auto& d : result.dims) runs.push_back({&host, fn, d.dim, 0.0});
    if (auto err = simulate(runs)) return err;
    for (std::size_t i = 0; i < oracle_runs; ++i) {
        const Cycles& oracle = runs[i].cycles;
        if (auto* err = std::get_if<SimulationError>(&oracle)) return *err;
        if (auto* flag = std::get_if<ModelFlag>(&oracle))
            return SimulationError{"the driver's own oracle cannot be modelled: " + flag->reason};
        oracle_[{fn.kernel, runs[i].dim}] = std::get<double>(oracle);
    }
    std::vector<double> speedups;
    for (std::size_t i = 0; i < result.dims.size(); ++i) {
        auto& d = result.dims[i];
        const Cycles& mine = runs[oracle_runs + i].cycles;
        if (auto* err = std::get_if<SimulationError>(&mine)) return *err;
        if (auto* flag = std::get_if<ModelFlag>(&mine)) {
            result.model_flag = flag->reason;
            for (auto& other : result.dims) other.model.reset();
            return std::nullopt;
        }
        const double oracle = oracle_[{fn.kernel, d.dim}], cycles = std::get<double>(mine);
        d.model = ModelFigures{cycles, oracle, oracle / cycles};
        speedups.push_back(oracle / cycles);
    }
    const double mean = geometric_mean(speedups);
    // A kernel much faster on the model than on the machine ran otherwise under the
    // simulator, or was built to be cheap only there.
    if (result.complete() && mean > model_.timing_bound * result.mean_speedup) {
        result.model_flag = fmt::format("its model speedup {:.2f} is more than {} times its timed speedup {:.2f}: it "
                                        "runs otherwise under the simulator than on the machine",
                                        mean, model_.timing_bound, result.mean_speedup);
        return std::nullopt;
    }
    result.model_mean_speedup = mean;
    return std::nullopt;
}

}  // namespace perflab
