#include "registry.hpp"

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

Registry::Registry(const HostRegistration& registration) {
    for (const auto& v : registration.variants) add(v.kernel, v.address, v.description);
}

void Registry::add(Kernel k, std::uint64_t address, std::string description) {
    variants_.push_back({k, address, std::move(description), 0});
}

std::vector<Variant> Registry::of(Kernel k) const {
    std::vector<Variant> out;
    for (const auto& v : variants_)
        if (v.kernel == k) {
            out.push_back(v);
            out.back().index = int(out.size()) - 1;
        }
    return out;
}

}  // namespace perflab
