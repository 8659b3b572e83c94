// The price of one modelled call on the model machine (docs/model.md): every executed
// instruction at its class's cycles, every data read and write at the load and
// store cycles, every L1d miss at the L1d miss penalty and every LL miss at the LL
// one besides. Sums of counts times the policy's figures: the same on every machine.
#pragma once

#include <string>
#include <variant>

#include "callgrind_profile.hpp"
#include "disassembly.hpp"
#include "machine_model.hpp"

namespace perflab {

// Why a profile cannot be priced: the code did what no honest kernel does under
// the simulator. One line, for the report's model_flag.
struct ModelFlag {
    std::string reason;
};

std::variant<double, ModelFlag> modelled_cycles(const CallgrindProfile& profile, const Disassembly& code,
                                                const MachineModel& model);

}  // namespace perflab
