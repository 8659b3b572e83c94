#include "scoring.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>
#include "common/toml_file.hpp"
#include <fmt/ranges.h>
#include "results.hpp"

namespace perflab {

namespace {

double curve_points(const std::vector<std::pair<double, double>>& curve, double speedup) {
    if (curve.empty()) return 0;
    if (speedup <= curve.front().first) return curve.front().second;
    if (speedup >= curve.back().first) return curve.back().second;
    auto hi = std::upper_bound(curve.begin(), curve.end(), speedup,
                               [](double s, const auto& point) { return s < point.first; });
    auto lo = hi - 1;
    double t = (speedup - lo->first) / (hi->first - lo->first);
    return lo->second + t * (hi->second - lo->second);
}

}  // namespace

double KernelPolicy::points(double speedup) const {
    const double raw = curve_points(curve, speedup);
    if (step <= 0 || raw >= max_points) return raw;
    // The tolerance keeps a curve point that sits on a step's edge on that edge.
    return std::floor(raw / step + 1e-9) * step;
}

std::vector<std::pair<double, double>> KernelPolicy::drawn_curve() const {
    if (step <= 0 || curve.empty()) return curve;
    std::vector<std::pair<double, double>> out{{curve.front().first, points(curve.front().first)}};
    for (std::size_t i = 1; i < curve.size(); ++i) {
        const auto [s0, p0] = curve[i - 1];
        const auto [s1, p1] = curve[i];
        // Where the segment crosses a step's edge, in the order the speedup meets them.
        std::vector<double> edges;
        for (double e = std::ceil(std::min(p0, p1) / step) * step; p1 != p0 && e <= std::max(p0, p1); e += step) {
            const double at = s0 + (e - p0) / (p1 - p0) * (s1 - s0);
            if (at > s0 && at < s1) edges.push_back(at);
        }
        std::sort(edges.begin(), edges.end());
        for (std::size_t k = 0; k < edges.size(); ++k) {
            const double next = k + 1 < edges.size() ? edges[k + 1] : s1;
            out.emplace_back(edges[k], out.back().second);
            out.emplace_back(edges[k], points((edges[k] + next) / 2));
        }
        // The curve's own corner may be an edge too (full marks off the step grid).
        if (points(s1) != out.back().second) out.emplace_back(s1, out.back().second);
        out.emplace_back(s1, points(s1));
    }
    return out;
}

double KernelPolicy::full_marks_speedup() const {
    for (const auto& [s, p] : curve)
        if (p >= max_points) return s;
    return curve.empty() ? 0 : curve.back().first;
}

KernelPolicy linear_policy(double max_points, double zero_at, double full_at) {
    return {max_points, {{zero_at, 0.0}, {full_at, max_points}}, {}};
}

ScoringPolicy default_policy() {
    ScoringPolicy p;
    p.rotate = p.smooth = linear_policy(kDefaultMaxPoints, kDefaultZeroAt, kDefaultFullAt);
    return p;
}

std::string default_policy_summary() {
    return fmt::format("{} points per kernel, 0 at speedup {} rising linearly to {} at {}", kDefaultMaxPoints,
                       kDefaultZeroAt, kDefaultMaxPoints, kDefaultFullAt);
}

namespace {

// 4096x4096 images are 96 MiB each: beyond that a policy is more likely a typo.
constexpr int kMaxPolicyDim = 4096;

KernelPolicy parse_kernel_policy(const toml::table& root, Kernel k, const std::string& source,
                                 std::vector<std::string>& warnings) {
    // A misspelt table or key would otherwise be ignored and grade a class under a
    // policy the instructor did not write; [slurm] belongs to the grader (its own reader).
    for (const auto& [key, node] : root)
        if (key != "rotate" && key != "smooth" && key != "slurm" && key != "model" && key != "basis")
            throw std::runtime_error(fmt::format("{}: unknown table [{}]: the tables are [rotate], [smooth], [model] and "
                                                 "[slurm], and basis = \"timing\" or \"model\" the one key above them",
                                                 source, key.str()));
    auto name = std::string(kernel_name(k));
    const toml::table* t = root[name].as_table();
    if (!t) throw std::runtime_error(fmt::format("{}: missing [{}] table", source, name));
    for (const auto& [key, node] : *t)
        if (key != "max_points" && key != "curve" && key != "step" && key != "dims")
            throw std::runtime_error(fmt::format("{}: unknown key [{}] {}: the keys are max_points, curve, step and dims",
                                                 source, name, key.str()));
    KernelPolicy p;
    // NaN passes every comparison below and would reach results.jsonl as null points.
    auto finite = [](std::optional<double> v) { return v && std::isfinite(*v) ? v : std::nullopt; };
    auto max_points = finite((*t)["max_points"].value<double>());
    if (!max_points || *max_points <= 0)
        throw std::runtime_error(fmt::format("{}: [{}] needs a finite max_points > 0", source, name));
    p.max_points = *max_points;
    const toml::array* curve = (*t)["curve"].as_array();
    if (!curve || curve->empty())
        throw std::runtime_error(fmt::format("{}: [{}] needs curve = [[speedup, points], ...]", source, name));
    for (const auto& node : *curve) {
        const toml::array* pair = node.as_array();
        auto s = pair && pair->size() == 2 ? finite((*pair)[0].value<double>()) : std::nullopt;
        auto pts = pair && pair->size() == 2 ? finite((*pair)[1].value<double>()) : std::nullopt;
        if (!s || !pts)
            throw std::runtime_error(
                fmt::format("{}: [{}] curve entries must be [speedup, points] finite numbers", source, name));
        if (*pts < 0 || *pts > p.max_points)
            throw std::runtime_error(
                fmt::format("{}: [{}] curve gives {} points, outside 0..{}", source, name, *pts, p.max_points));
        if (!p.curve.empty() && *s <= p.curve.back().first)
            throw std::runtime_error(fmt::format("{}: [{}] curve speedups must increase", source, name));
        // A faster kernel never earns fewer points.
        if (!p.curve.empty() && *pts < p.curve.back().second)
            throw std::runtime_error(fmt::format("{}: [{}] curve falls from {} to {} points at speedup {}: points must not "
                                                 "decrease as the speedup grows",
                                                 source, name, p.curve.back().second, *pts, *s));
        p.curve.emplace_back(*s, *pts);
    }
    if (p.curve.back().second < p.max_points)
        warnings.push_back(fmt::format("{}: warning: [{}] curve tops out at {} of max_points {}, so no hand-in gets full marks: end "
                                "the curve at max_points if that is not meant",
                                source, name, p.curve.back().second, p.max_points));
    if (const toml::node* step = t->get("step")) {
        auto v = finite(step->value<double>());
        if (!v || *v < 0 || *v > p.max_points)
            throw std::runtime_error(fmt::format(
                "{}: [{}] step must be a number of points from 0 (no steps) to max_points, e.g. step = 5", source, name));
        p.step = *v;
    }
    if (const toml::node* dims = t->get("dims")) {
        const toml::array* a = dims->as_array();
        if (!a || a->empty())
            throw std::runtime_error(fmt::format("{}: [{}] dims must be a list of dimensions, e.g. dims = [256, 512, 1024]",
                                                 source, name));
        for (const auto& node : *a) {
            auto d = node.value<std::int64_t>();
            if (!d || *d < 1 || *d > kMaxPolicyDim || (!p.dims.empty() && *d <= p.dims.back()))
                throw std::runtime_error(fmt::format(
                    "{}: [{}] dims must be increasing whole numbers from 1 to {}", source, name, kMaxPolicyDim));
            p.dims.push_back(int(*d));
        }
    }
    return p;
}

}  // namespace

ScoringPolicy parse_policy(const std::string& toml_text, const std::string& source_name) {
    toml::table root = parse_toml(toml_text, source_name,
                                  "a policy file is TOML with [rotate] and [smooth] tables (docs/grader.md, Scoring)");
    ScoringPolicy policy;
    policy.source = source_name;
    policy.rotate = parse_kernel_policy(root, Kernel::rotate, source_name, policy.warnings);
    policy.smooth = parse_kernel_policy(root, Kernel::smooth, source_name, policy.warnings);
    if (const toml::node* basis = root.get("basis")) {
        auto v = basis->value<std::string>();
        if (v != "timing" && v != "model")
            throw std::runtime_error(fmt::format("{}: basis must be \"timing\" (points for the timed speedup) or \"model\" "
                                                 "(for the model machine's, docs/model.md)",
                                                 source_name));
        policy.basis = *v == "model" ? Basis::model : Basis::timing;
    }
    if (const toml::node* model = root.get("model")) {
        if (!model->as_table())
            throw std::runtime_error(fmt::format("{}: model must be a table, [model] (docs/model.md)", source_name));
        policy.model = parse_machine_model(*model->as_table(), source_name);
    }
    return policy;
}

ScoringPolicy load_policy(const std::string& path) { return parse_policy(read_text_file(path, "policy"), path); }

std::string policy_to_toml(const ScoringPolicy& policy, const std::string& comment) {
    std::string out = fmt::format("# perflab scoring policy. {}\n# Points per kernel: piecewise linear in the speedup, "
                                  "clamped at both ends, in whole steps where a step is set.\n",
                                  comment);
    // A top-level key must come before the first table.
    if (policy.basis == Basis::model) out += fmt::format("basis = \"{}\"\n", basis_name(policy.basis));
    for (Kernel k : kAllKernels) {
        const auto& p = policy.of(k);
        out += fmt::format("\n[{}]\nmax_points = {}\ncurve = [", kernel_name(k), p.max_points);
        for (std::size_t i = 0; i < p.curve.size(); ++i)
            // Shortest round-trip: rounded, close points would collapse and the policy no longer parse.
            out += fmt::format("{}[{}, {}]", i ? ", " : "", p.curve[i].first, p.curve[i].second);
        out += "]\n";
        if (p.step > 0) out += fmt::format("step = {}\n", p.step);
        if (!p.dims.empty()) out += fmt::format("dims = [{}]\n", fmt::join(p.dims, ", "));
    }
    // Only where it says something: a timing policy on the default model reads as it always did.
    if (policy.basis == Basis::model || !(policy.model == default_machine_model()))
        out += machine_model_toml(policy.model);
    return out;
}

void score_run(RunResult& run, const ScoringPolicy& policy) {
    std::optional<double> total;
    const bool by_model = policy.basis == Basis::model;
    for (auto& kr : run.kernels) {
        const KernelPolicy& p = policy.of(kr.kernel);
        kr.max_points = p.max_points;
        kr.curve = p.drawn_curve();
        for (auto& v : kr.variants) {
            v.model_points.reset();
            if (v.correct && v.model_mean_speedup) v.model_points = p.points(*v.model_mean_speedup);
            v.points.reset();
            if (by_model) v.points = v.model_points;
            else if (v.complete()) v.points = p.points(v.mean_speedup);
        }
        // Only the graded rotate()/smooth() earns the Score line's points, as with the
        // grader: another variant's figure would promise points the grade does not give.
        const VariantResult* scored = nullptr;
        for (const auto& v : kr.variants)
            if (v.graded) scored = &v;
        if (!scored) continue;
        kr.points = scored->points.value_or(0.0);
        kr.points_from = scored->name;
        total = total.value_or(0.0) + *kr.points;
    }
    run.total_points = total;
    run.basis = policy.basis;
    run.config.policy_source = policy.source;
}

}  // namespace perflab
