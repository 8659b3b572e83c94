#include "model_cost.hpp"

#include <fmt/format.h>

namespace perflab {

std::variant<double, ModelFlag> modelled_cycles(const CallgrindProfile& profile, const Disassembly& code,
                                                const MachineModel& model) {
    double cycles = 0;
    for (const auto& [address, c] : profile.instructions) {
        if (c.Ir == 0) continue;
        auto at = code.instructions.find(address);
        // Code made at run time is not what the binary holds: nothing says what it is.
        if (at == code.instructions.end())
            return ModelFlag{fmt::format("it executed code at {:#x}, which is not in its binary (code generated at run "
                                         "time cannot be modelled)",
                                         address)};
        if (code.client_requests.count(address))
            return ModelFlag{fmt::format("it executed a valgrind client request at {:#x}, which changes what the "
                                         "simulator counts",
                                         address)};
        cycles += double(c.Ir) * model.instr_cycles[std::size_t(at->second)];
    }
    const CacheCounts& t = profile.total;
    cycles += double(t.Dr) * model.load_cycles + double(t.Dw) * model.store_cycles;
    const double f = model.store_miss_factor;
    cycles += (double(t.D1mr) + f * double(t.D1mw)) * model.l1d_miss_cycles +
              (double(t.DLmr) + f * double(t.DLmw)) * model.ll_miss_cycles;
    return cycles;
}

}  // namespace perflab
