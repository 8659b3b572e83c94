#include "registry.hpp"

#include <fmt/format.h>

#include "host/host_protocol.h"
#include "host/reference_host.h"
#include "oracle.h"

namespace perflab {

std::optional<Kernel> parse_kernel(std::string_view name) {
    if (name == "rotate") return Kernel::rotate;
    if (name == "smooth") return Kernel::smooth;
    return std::nullopt;
}

lab_test_func oracle_for(Kernel k) { return k == Kernel::rotate ? oracle_rotate : oracle_smooth; }

HostFunction Variant::host_function() const {
    switch (index) {
        case kOracle: return {kernel, PERFLAB_REF_ORACLE};
        case kSpeedOfLight: return {kernel, PERFLAB_REF_SPEED_OF_LIGHT};
        case kReferenceBlocked: return {kernel, PERFLAB_REF_ROTATE_BLOCKED};
        case kReferenceTwoPass: return {kernel, PERFLAB_REF_SMOOTH_TWO_PASS};
        case kReferenceTile: return {kernel, PERFLAB_REF_ROTATE_TILE, arg};
        case kGraded: return {kernel, HostFunction::kGraded};
        case kUnregistered: return {kernel, HostFunction::kAtAddress, std::int64_t(address)};
        default: return {kernel, index};
    }
}

Registry::Registry(const HostRegistration& registration) : dropped_(registration.dropped) {
    for (const auto& v : registration.variants) {
        const std::string& name = v.description.text;
        if (v.description.cut)
            warnings_.push_back(fmt::format("the description of {} variant '{}...' is longer than the {} bytes a "
                                            "report keeps: it was cut there",
                                            kernel_name(v.kernel), name.substr(0, 40), PERFLAB_HOST_TEXT_MAX - 1));
        if (v.address == 0) {
            warnings_.push_back(fmt::format("kernels.c registered {0} variant '{1}' with a NULL function: it is not "
                                            "timed (pass the function to add_{0}_function())",
                                            kernel_name(v.kernel), name));
            continue;
        }
        // The host's own position of the variant, which is how a call names it.
        variants_.push_back({v.kernel, v.address, name, v.index});
    }
    if (dropped_ > 0)
        warnings_.push_back(fmt::format("kernels.c registered {} functions past the {} a run takes: they are not "
                                        "timed (register fewer)",
                                        dropped_, PERFLAB_HOST_MAX_VARIANTS));
}

std::vector<Variant> Registry::of(Kernel k) const {
    std::vector<Variant> out;
    for (const auto& v : variants_)
        if (v.kernel == k) out.push_back(v);
    return out;
}

}  // namespace perflab
