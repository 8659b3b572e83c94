#include "model_run.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <vector>

#include "callgrind_profile.hpp"
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

ModelRunner::ModelRunner(MachineModel model, HostLaunch reference) : model_(std::move(model)), reference_(std::move(reference)) {}

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

ModelRunner::Cycles ModelRunner::cycles_per_pixel(const HostLaunch& host, const HostFunction& fn, int dim) {
    auto listed = code(host.executable);
    if (auto* err = std::get_if<SimulationError>(&listed)) return *err;
    const HostCode& hc = *std::get<const HostCode*>(listed);
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

std::optional<SimulationError> ModelRunner::measure(const HostLaunch& host, const HostFunction& fn,
                                                    VariantResult& result) {
    if (!result.correct || result.dims.empty()) return std::nullopt;
    std::vector<double> speedups;
    for (auto& d : result.dims) {
        auto key = std::make_pair(fn.kernel, d.dim);
        if (!oracle_.count(key)) {
            auto oracle = cycles_per_pixel(reference_, {fn.kernel, kOracleIndex, 0}, d.dim);
            if (auto* err = std::get_if<SimulationError>(&oracle)) return *err;
            if (auto* flag = std::get_if<ModelFlag>(&oracle))
                return SimulationError{"the driver's own oracle cannot be modelled: " + flag->reason};
            oracle_[key] = std::get<double>(oracle);
        }
        auto mine = cycles_per_pixel(host, fn, d.dim);
        if (auto* err = std::get_if<SimulationError>(&mine)) return *err;
        if (auto* flag = std::get_if<ModelFlag>(&mine)) {
            result.model_flag = flag->reason;
            for (auto& other : result.dims) other.model.reset();
            return std::nullopt;
        }
        const double oracle = oracle_[key], cycles = std::get<double>(mine);
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
