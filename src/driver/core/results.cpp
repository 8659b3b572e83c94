#include "results.hpp"

namespace perflab {

const KernelResult* RunResult::find(Kernel k) const {
    for (const auto& kr : kernels)
        if (kr.kernel == k) return &kr;
    return nullptr;
}

bool VariantResult::converged() const {
    for (const auto& d : dims)
        if (!d.converged) return false;
    return true;
}

}  // namespace perflab
