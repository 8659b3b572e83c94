// unregistered-candidate: a function named like the kernel that nothing registers
// or runs; checked and timed where its debug information gives its parameters.
#include <fmt/format.h>
#include "timing.hpp"

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {

void unregistered(const KernelEvidence& e, std::optional<std::string> why_uncalled, std::vector<Finding>& out) {
    const std::string fn = graded_call(e.kernel);
    const auto gi = graded_index(e.result);
    for (const auto& u : e.unregistered) {
        std::string title = fmt::format("{} is in the binary but neither registered nor run by {}", u.name, fn);
        Evidence ev{{"function", u.name}};
        std::string meaning = "the driver checks and times only registered functions and the grader only "
                              "rotate()/smooth(): whatever this function does is not measured by them.";
        std::string advice = fmt::format("register it (add_{}_function(&{}, \"{}: ...\")) to have it checked and timed.",
                                         kernel_name(e.kernel), u.name, u.name);
        if (!u.variant) {
            ev.emplace_back("not called", why_uncalled.value_or("its parameters are unknown"));
        } else if (const VariantResult& v = e.result.variants[*u.variant]; !v.correct) {
            title += ": it fails the check";
            ev.emplace_back("error", v.failure ? v.failure->summary() : "");
            meaning = "explain called it with a kernel's arguments (its debug information declares them): it does not "
                      "compute what the oracle does.";
            advice = fmt::format("fix {} before registering it; failing-dims says where it fails.", u.name);
        } else if (v.complete() && gi && e.result.variants[*gi].complete()) {
            const VariantResult& g = e.result.variants[*gi];
            const Gap c = speedup_gap(e, v, g);
            const double mine = speedup_at(e, v), graded = speedup_at(e, g);
            ev.emplace_back("speedup", mine);
            ev.emplace_back(fn + " speedup", graded);
            add_noise(ev, c, e, v, g);
            if (c.resolved && mine > graded) {
                title += fmt::format(", and it is faster at {} ({:.2f} against {:.2f})", e.dim, mine, graded);
                advice = fmt::format("register {} and make {} call it.", u.name, fn);
            } else {
                title += fmt::format(": it passes the check ({:.2f}; {} {:.2f} at {}{})", mine, fn, graded, e.dim,
                                     c.resolved ? "" : ", within noise");
            }
        }
        Finding f = make(FindingId::unregistered_candidate, Severity::warning, e.kernel, {}, title);
        f.evidence = std::move(ev);
        f.meaning = std::move(meaning);
        f.advice = std::move(advice);
        out.push_back(std::move(f));
    }
}

}  // namespace perflab::checks
