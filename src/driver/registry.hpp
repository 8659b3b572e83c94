// The variants a kernels file registered through add_rotate_function and
// add_smooth_function, in registration order.
#pragma once

#include <string>
#include <vector>

#include "kernel.hpp"

namespace perflab {

struct Variant {
    Kernel kernel;
    lab_test_func fn;
    std::string description;
    int index = kGraded;  // position among the kernel's registered variants

    static constexpr int kOracle = -1;  // the driver's naive oracle
    static constexpr int kGraded = -2;  // rotate()/smooth() themselves, as -g times them
    // The reference kernels of reference_catalog(), for --explain's comparisons.
    static constexpr int kReferenceBlocked = -3;  // the blocked rotate
    static constexpr int kReferenceTwoPass = -4;  // the two-pass smooth
};

class Registry {
public:
    void add(Kernel k, lab_test_func fn, const char* description);
    std::vector<Variant> of(Kernel k) const;
    const std::vector<Variant>& all() const { return variants_; }
    void clear() { variants_.clear(); }

private:
    std::vector<Variant> variants_;
};

// The registry the C entry points fill.
Registry& global_registry();

}  // namespace perflab
