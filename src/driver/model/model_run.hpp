// A variant on the model machine (docs/model.md): at each dimension one call in its
// kernel host under callgrind (kernel-host --model, in the timing's sandbox when the
// run has one), on inputs from the model's seed, its output checked against the
// oracle's, priced by model_cost; the naive oracle the same way in the driver's
// reference host, once per dimension. What the code did that the model cannot
// count flags the variant instead of giving it a figure.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "driver/core/kernel_host.hpp"
#include "driver/core/results.hpp"
#include "disassembly.hpp"
#include "model_cost.hpp"
#include "machine_model.hpp"

namespace perflab {

class ModelRunner {
public:
    // The simulations run on `cpus` at once, one each (none: one at a time, where
    // this thread may run): their figures do not depend on what else runs.
    ModelRunner(MachineModel model, HostLaunch reference, std::vector<int> cpus = {});

    // Fills the model figures of a correct variant's dims, and its model mean speedup
    // or model_flag (after its timing, which the timing bound compares against). An
    // error means the model cannot run here at all.
    std::optional<SimulationError> measure(const HostLaunch& host, const HostFunction& fn, VariantResult& result);

    const MachineModel& model() const { return model_; }

private:
    using Cycles = std::variant<double, ModelFlag, SimulationError>;
    // A host's code, and why none of its variants can be modelled, if so.
    struct HostCode {
        Disassembly code;
        std::optional<std::string> refusal;
    };
    std::variant<const HostCode*, SimulationError> code(const std::string& executable);
    // One modelled call, safe to run beside others once code() listed the host.
    Cycles cycles_per_pixel(const HostLaunch& host, const HostCode& hc, const HostFunction& fn, int dim) const;
    // What measure() simulates: each at once, where cpus_ allow.
    struct Simulation {
        const HostLaunch* host;
        HostFunction fn;
        int dim;
        Cycles cycles;
    };
    std::optional<SimulationError> simulate(std::vector<Simulation>& runs);

    MachineModel model_;
    HostLaunch reference_;
    std::vector<int> cpus_;
    std::map<std::string, std::unique_ptr<HostCode>> code_;  // by executable
    std::map<std::pair<Kernel, int>, double> oracle_;           // cycles per pixel
};

}  // namespace perflab
