// The answer first: per kernel, the one finding that matters most and its fix, in
// at most three lines, before every other finding (text, JSON and page).
#include <algorithm>
#include <fmt/format.h>

#include "checks/ids.hpp"
#include "explain.hpp"

namespace perflab {
namespace {

// Which problem a TA fixes first: what the grader times, then whether it is right,
// then the code's order, misses and work, then its facts.
constexpr FindingId kPriority[] = {
    FindingId::graded_function,  FindingId::failing_dims,     FindingId::variant_equals_naive,
    FindingId::access_order,     FindingId::memory_misses,    FindingId::tile_shape,
    FindingId::work_per_pixel,   FindingId::variable_divisor, FindingId::calls_per_pixel,
    FindingId::per_call_allocation, FindingId::threads,      FindingId::unregistered_candidate,
    FindingId::edited_baseline,  FindingId::at_ceiling,       FindingId::within_noise,
};

int priority(const Finding& f) {
    for (std::size_t i = 0; i < std::size(kPriority); ++i)
        if (finding_kind(kPriority[i]).name == f.id) return int(i);
    return int(std::size(kPriority));
}

SummaryLine line_of(const Finding& f, std::optional<Kernel> kernel, int more) {
    return {kernel, f.id, f.title, f.advice, more};
}

}  // namespace

std::vector<SummaryLine> explain_summary(const ExplainData& data, const std::vector<Finding>& findings) {
    std::vector<SummaryLine> out;
    // The build first: a stale or unoptimised build makes every other figure moot.
    for (const auto& f : findings)
        if (!f.kernel && f.severity == Severity::problem && f.id != finding_kind(FindingId::measurement_quality).name)
            out.push_back(line_of(f, std::nullopt, 0));
    for (const auto& e : data.kernels) {
        const Finding* best = nullptr;
        int problems = 0;
        for (const auto& f : findings) {
            if (f.kernel != e.kernel || f.severity == Severity::ok) continue;
            problems += f.severity == Severity::problem;
            // A problem before any warning, a warning before context; then by priority.
            auto key = [](const Finding& x) { return std::pair(int(x.severity), priority(x)); };
            if (!best || key(f) < key(*best)) best = &f;
        }
        if (best) out.push_back(line_of(*best, e.kernel, std::max(0, problems - (best->severity == Severity::problem))));
    }
    return out;
}

std::vector<GradeLine> grade_lines(const RunResult& scored) {
    std::vector<GradeLine> out;
    for (const auto& k : scored.kernels)
        for (const auto& v : k.variants) {
            if (!v.graded) continue;
            const bool by_model = scored.basis == Basis::model;
            std::optional<double> speedup = by_model ? v.model_mean_speedup : std::nullopt;
            if (!by_model && v.complete()) speedup = v.mean_speedup;
            out.push_back({k.kernel, k.dims, v.name, speedup, k.points, k.max_points});
        }
    return out;
}

std::string grade_text(const std::vector<GradeLine>& grade) {
    if (grade.empty()) return "";
    std::string out = "Grade (as ./driver scores it):\n";
    for (const auto& g : grade)
        out += fmt::format("  {}: {} of {:g} points, {} at {}\n", kernel_name(g.kernel),
                           g.points ? fmt::format("{:.1f}", *g.points) : std::string("no"), g.max_points,
                           g.mean_speedup ? fmt::format("mean speedup {:.2f}", *g.mean_speedup) : std::string("no speedup"),
                           fmt::join(g.dims, ", "));
    return out + "\n";
}

std::string summary_text(const std::vector<SummaryLine>& summary) {
    std::string out = "Summary:\n";
    for (const auto& s : summary) {
        out += fmt::format("  {}: {}\n", s.kernel ? std::string(kernel_name(*s.kernel)) : "build", s.title);
        if (!s.fix.empty()) out += fmt::format("    fix: {}\n", s.fix);
        if (s.more_problems > 0)
            out += fmt::format("    ({} more problem{} below)\n", s.more_problems, s.more_problems == 1 ? "" : "s");
    }
    return out + "\n";
}

}  // namespace perflab
