// The findings as text for a person and as JSON for tools; formatting only.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "explain.hpp"

namespace perflab {
namespace {

using nlohmann::ordered_json;

std::string value_text(const EvidenceValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    const double d = std::get<double>(v);
    if (d == double(long(d)) && std::fabs(d) < 1e15) return fmt::format("{}", long(d));
    return fmt::format("{:.3g}", d);
}

ordered_json value_json(const EvidenceValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    return std::get<double>(v);
}

ordered_json figures_json(const CacheFigures& f) {
    ordered_json j = ordered_json::object();
    auto put = [&](const char* name, const std::optional<double>& v) { j[name] = v ? ordered_json(*v) : ordered_json(); };
    put("d1_read_misses_per_px", f.d1_read);
    put("d1_write_misses_per_px", f.d1_write);
    put("d1_misses_per_px", f.d1());
    put("ll_misses_per_px", f.ll);
    put("instructions_per_px", f.instructions);
    return j;
}

ordered_json pattern_json(const std::optional<AccessPattern>& p) {
    if (!p) return ordered_json();
    ordered_json callees = ordered_json::object();
    for (const auto& [name, n] : p->callees) callees[name] = n;
    ordered_json divides = ordered_json::array();
    for (const DivideSite& d : p->divides) {
        ordered_json written = ordered_json::array();
        for (const Division& w : d.divisions) written.push_back(w.text);
        divides.push_back({{"where", d.where}, {"per_px", d.per_px}, {"divisions", written}});
    }
    return {{"dim", p->dim},
            {"store_step", p->store.step},
            {"store_step_share", p->store.share},
            {"load_step", p->load.step},
            {"load_step_share", p->load.share},
            {"tile_rows", p->tile.rows},
            {"tile_cols", p->tile.cols},
            {"unroll_rows", p->loops ? ordered_json(p->loops->unroll.rows) : ordered_json()},
            {"unroll_cols", p->loops ? ordered_json(p->loops->unroll.cols) : ordered_json()},
            {"walk_rows", p->walk.rows},
            {"walk_cols", p->walk.cols},
            {"stores_per_pixel", p->loops ? ordered_json(p->loops->stores_per_pixel) : ordered_json()},
            {"src_fetches_per_line", p->src_fetches_per_line},
            {"dst_fetches_per_line", p->dst_fetches_per_line},
            {"divisions_per_px", p->divisions_per_px},
            {"divide_sites", divides},
            {"calls_per_px", p->calls_per_px},
            {"allocations_per_call", p->allocations_per_call},
            {"threads_per_call", p->threads_per_call},
            {"callees_per_px", callees}};
}

ordered_json function_json(const FunctionEvidence& e) {
    return {{"name", e.name},
            {"cpe", e.cpe ? ordered_json(*e.cpe) : ordered_json()},
            {"converged", e.converged},
            {"figures", figures_json(e.figures)},
            {"speedup", e.speedup ? ordered_json(*e.speedup) : ordered_json()},
            {"access_pattern", pattern_json(e.pattern)},
            {"page_faults_per_call", e.faults_per_call ? ordered_json(*e.faults_per_call) : ordered_json()}};
}

ordered_json kernel_json(const KernelEvidence& e) {
    ordered_json variants = ordered_json::array();
    for (std::size_t i = 0; i < e.result.variants.size(); ++i) {
        const auto& v = e.result.variants[i];
        ordered_json dims = ordered_json::array();
        for (const auto& d : v.dims)
            dims.push_back({{"dim", d.dim}, {"cpe", d.cpe}, {"speedup", d.speedup}, {"converged", d.converged}});
        variants.push_back({{"name", v.name},
                            {"graded", v.graded},
                            {"registered", e.registered(i)},
                            {"correct", v.correct},
                            {"mean_speedup", v.complete() ? ordered_json(v.mean_speedup) : ordered_json()},
                            {"dims", dims},
                            {"figures", figures_json(e.figures[i])},
                            {"symbol", i < e.symbols.size() ? ordered_json(e.symbols[i]) : ordered_json()},
                            {"access_pattern", pattern_json(i < e.patterns.size() ? e.patterns[i] : std::nullopt)},
                            {"page_faults_per_call",
                             i < e.faults_per_call.size() && e.faults_per_call[i] ? ordered_json(*e.faults_per_call[i])
                                                                                  : ordered_json()}});
    }
    ordered_json unregistered = ordered_json::array();
    for (const auto& u : e.unregistered) unregistered.push_back(u.name);
    ordered_json sweep = ordered_json::array();
    for (const auto& p : e.tile_sweep) sweep.push_back({{"tile", p.tile}, {"cpe", p.cpe}, {"converged", p.converged}});
    return {{"dim", e.dim},
            {"graded_symbol", e.graded_symbol},
            {"graded_jumps_to", e.graded_jumps_to ? ordered_json(*e.graded_jumps_to) : ordered_json()},
            {"naive", function_json(e.naive)},
            {"reference", e.reference ? function_json(*e.reference) : ordered_json()},
            {"variants", variants},
            {"tile_sweep", sweep},
            {"noise", {{"oracle_cpe_spread", e.noise.spread}, {"samples", e.noise.samples}, {"tolerance", e.noise.tolerance}}},
            {"unregistered", unregistered}};
}

}  // namespace

std::string explain_text(const ExplainData& data, const std::vector<Finding>& findings) {
    std::string out = "perflab --explain";
    for (const auto& e : data.kernels) out += fmt::format("  {} at {}", kernel_name(e.kernel), e.dim);
    out += fmt::format("\nPer-pixel figures: {}\n\n",
                       data.figures_source.empty() ? "none (" + data.figures_unavailable.value_or("?") + ")"
                                                   : data.figures_source);
    out += grade_text(data.grade);
    out += summary_text(explain_summary(data, findings));
    std::vector<const Finding*> fine;
    for (const auto& f : findings) {
        if (f.severity == Severity::ok) {
            fine.push_back(&f);
            continue;
        }
        out += fmt::format("[{}] {}: {}\n", severity_name(f.severity), f.id, f.title);
        for (const auto& [name, value] : f.evidence) out += fmt::format("    {}: {}\n", name, value_text(value));
        if (!f.meaning.empty()) out += fmt::format("  What it means: {}\n", f.meaning);
        if (!f.advice.empty()) out += fmt::format("  What to try: {}\n", f.advice);
        out += "\n";
    }
    if (!fine.empty()) {
        out += "Checked, nothing to fix:\n";
        for (const Finding* f : fine) out += fmt::format("  {}: {}\n", f->id, f->title);
    }
    return out;
}

std::string explain_json(const ExplainData& data, const std::vector<Finding>& findings) {
    ordered_json list = ordered_json::array();
    for (const auto& f : findings) {
        ordered_json evidence = ordered_json::object();
        for (const auto& [name, value] : f.evidence) evidence[name] = value_json(value);
        list.push_back({{"id", f.id},
                        {"severity", std::string(severity_name(f.severity))},
                        {"kernel", f.kernel ? ordered_json(std::string(kernel_name(*f.kernel))) : ordered_json()},
                        {"variant", f.variant ? ordered_json(*f.variant) : ordered_json()},
                        {"title", f.title},
                        {"evidence", evidence},
                        {"meaning", f.meaning},
                        {"advice", f.advice}});
    }
    ordered_json kernels = ordered_json::object();
    for (const auto& e : data.kernels) kernels[std::string(kernel_name(e.kernel))] = kernel_json(e);
    ordered_json grade = ordered_json::array();
    for (const auto& g : data.grade)
        grade.push_back({{"kernel", std::string(kernel_name(g.kernel))},
                         {"function", g.function},
                         {"dims", g.dims},
                         {"mean_speedup", g.mean_speedup ? ordered_json(*g.mean_speedup) : ordered_json()},
                         {"points", g.points ? ordered_json(*g.points) : ordered_json()},
                         {"max_points", g.max_points}});
    ordered_json summary = ordered_json::array();
    for (const auto& l : explain_summary(data, findings))
        summary.push_back({{"kernel", l.kernel ? ordered_json(std::string(kernel_name(*l.kernel))) : ordered_json()},
                           {"id", l.id},
                           {"title", l.title},
                           {"fix", l.fix},
                           {"more_problems", l.more_problems}});
    ordered_json j{{"schema", "perflab-explain-1"},
                   {"grade", grade},
                   {"summary", summary},
                   {"figures_source", data.figures_source},
                   {"reference_kernels", data.reference_kernels},
                   {"trace_unavailable", data.trace_unavailable ? ordered_json(*data.trace_unavailable) : ordered_json()},
                   {"findings", list},
                   {"measurements", kernels}};
    return j.dump(2) + "\n";
}

}  // namespace perflab
