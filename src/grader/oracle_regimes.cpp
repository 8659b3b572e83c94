#include "oracle_regimes.hpp"

#include <cmath>
#include <fmt/format.h>

#include "common/statistics.hpp"

namespace perflab::grader {
using nlohmann::json;

std::optional<RegimeChange> regime_change(const std::vector<double>& cpes) {
    constexpr std::size_t least = 3;
    std::optional<RegimeChange> best;
    double best_cost = 0;
    // The split that two levels explain best: the least absolute deviation from
    // each side's median.
    for (std::size_t k = least; k + least <= cpes.size(); ++k) {
        const std::vector<double> before(cpes.begin(), cpes.begin() + k), after(cpes.begin() + k, cpes.end());
        RegimeChange c{k + 1, median(before), median(after)};
        if (c.before <= 0 || c.after <= 0) continue;
        double cost = 0;
        for (std::size_t i = 0; i < cpes.size(); ++i) cost += std::fabs(cpes[i] - (i < k ? c.before : c.after));
        if (!best || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    if (!best || std::fabs(best->after / best->before - 1) < kRegimeShift) return std::nullopt;
    // Two levels, not a drift or a few outliers: each side stays on its side of
    // the midpoint.
    const double mid = std::sqrt(best->before * best->after);
    const bool rose = best->after > best->before;
    std::size_t stray_before = 0, stray_after = 0, k = best->after_trial - 1;
    for (std::size_t i = 0; i < cpes.size(); ++i) {
        const bool high = cpes[i] > mid;
        if (i < k && high == rose) ++stray_before;
        if (i >= k && high != rose) ++stray_after;
    }
    if (4 * stray_before > k || 4 * stray_after > cpes.size() - k) return std::nullopt;
    return best;
}

namespace {

// The oracle's CPE beside the graded variant of `kernel`: the geometric mean over
// its dims; nullopt when the report has none.
std::optional<double> oracle_cpe(const json& report, const char* kernel) {
    if (!report.is_object() || !report.contains("kernels") || !report["kernels"].contains(kernel)) return std::nullopt;
    const json& variants = report["kernels"][kernel]["variants"];
    if (!variants.is_array()) return std::nullopt;
    for (const auto& v : variants) {
        if (!v.is_object() || !v.value("graded", false) || !v.contains("dims") || !v["dims"].is_array()) continue;
        std::vector<double> cpes;
        for (const auto& d : v["dims"])
            if (d.is_object() && d.contains("baseline_cpe") && d["baseline_cpe"].is_number() && d["baseline_cpe"] > 0)
                cpes.push_back(d["baseline_cpe"].get<double>());
        if (!cpes.empty()) return geometric_mean(cpes);
    }
    return std::nullopt;
}

json kernel_summary(const std::vector<double>& cpes) {
    json j = {{"trials", cpes.size()}, {"moved", false}};
    if (auto c = regime_change(cpes)) {
        j["moved"] = true;
        j["after_trial"] = c->after_trial;
        j["before_cpe"] = c->before;
        j["after_cpe"] = c->after;
        j["change_percent"] = c->change_percent();
    }
    return j;
}

}  // namespace

void OracleWatch::add(const json& report) {
    if (auto c = oracle_cpe(report, "rotate")) rotate_.push_back(*c);
    if (auto c = oracle_cpe(report, "smooth")) smooth_.push_back(*c);
}

json OracleWatch::summary() const {
    return {{"threshold_percent", kRegimeShift * 100}, {"rotate", kernel_summary(rotate_)}, {"smooth", kernel_summary(smooth_)}};
}

std::vector<std::string> OracleWatch::warnings() const {
    std::vector<std::string> out;
    for (const auto& [name, cpes] : {std::pair{"rotate", &rotate_}, std::pair{"smooth", &smooth_}})
        if (auto c = regime_change(*cpes))
            out.push_back(fmt::format(
                "the machine changed under this batch: the naive {} oracle's CPE moved {:+.0f}% ({:.2f} -> {:.2f}) "
                "from the batch's trial {} of {} on; every hand-in's trials were spread over both, but timed points "
                "are only as steady as the machine (see batch.json \"oracle_regimes\"; basis = \"model\" does not "
                "depend on it)",
                name, c->change_percent(), c->before, c->after, c->after_trial, cpes->size()));
    return out;
}

}  // namespace perflab::grader
