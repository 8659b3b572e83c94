#include "report.hpp"

namespace perflab {

void Reporters::start(const RunResult& context) {
    for (auto& r : reporters_) r->start(context);
}

void Reporters::kernel_started(const KernelResult& kernel) {
    for (auto& r : reporters_) r->kernel_started(kernel);
}

void Reporters::variant_done(const KernelResult& kernel, const VariantResult& variant) {
    for (auto& r : reporters_) r->variant_done(kernel, variant);
}

void Reporters::finish(const RunResult& run) {
    for (auto& r : reporters_) r->finish(run);
}

RunnerObserver observer_for(Reporter& r) {
    RunnerObserver o;
    o.kernel_started = [&r](const KernelResult& k) { r.kernel_started(k); };
    o.variant_done = [&r](const KernelResult& k, const VariantResult& v) { r.variant_done(k, v); };
    return o;
}

}  // namespace perflab
