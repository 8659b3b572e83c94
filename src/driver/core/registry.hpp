// The variants a kernels file registered through add_rotate_function and
// add_smooth_function, in registration order, as its kernel host reported them;
// and the driver's own functions a plan may time beside them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel.hpp"
#include "kernel_host.hpp"

namespace perflab {

struct Variant {
    Kernel kernel;
    std::uint64_t address = 0;  // in the student's host: identity only (0 for the driver's own)
    std::string description;
    int index = kGraded;  // position among the kernel's registered variants, or one of these:
    int arg = 0;          // kReferenceTile's tile edge

    static constexpr int kOracle = -1;  // the driver's naive oracle
    static constexpr int kGraded = -2;  // rotate()/smooth() themselves, as -g times them
    // The reference kernels, for --explain's comparisons (where the build has them).
    static constexpr int kReferenceBlocked = -3;  // the blocked rotate
    static constexpr int kReferenceTwoPass = -4;  // the two-pass smooth
    static constexpr int kSpeedOfLight = -6;      // a memcpy of the image
    static constexpr int kReferenceTile = -7;     // the blocked rotate with tile edge `arg`
    static constexpr int kUnregistered = -8;      // a student function at `address` that nothing registered


    // Whether it runs in the driver's reference host rather than the student's.
    bool in_reference_host() const { return index != kGraded && index != kUnregistered && index < 0; }
    // What the host is asked to run.
    HostFunction host_function() const;
};

class Registry {
public:
    // Every registration the host kept, but those of a NULL function, which no
    // call could run.
    explicit Registry(const HostRegistration& registration);
    Registry() = default;
    std::vector<Variant> of(Kernel k) const;
    const std::vector<Variant>& all() const { return variants_; }
    // What the registration got wrong, one line each: NULL functions, descriptions
    // cut, registrations past the host's limit.
    const std::vector<std::string>& warnings() const { return warnings_; }
    int dropped() const { return dropped_; }

private:
    std::vector<Variant> variants_;
    std::vector<std::string> warnings_;
    int dropped_ = 0;
};

}  // namespace perflab
