#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "driver/cli/options.hpp"
#include "host_printed.hpp"
#include "machine_load.hpp"
#include "report.hpp"

namespace perflab {
namespace {

using nlohmann::json;

template <typename T>
json optional_value(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

json optional_string(const std::optional<std::string>& s) { return optional_value(s); }

json model_json(const MachineModel& m) {
    json cycles = json::object();
    for (const auto& [key, value] : model_cycles(m)) cycles[std::string(key)] = value;
    return {{"line_bytes", m.line_bytes},
            {"l1d", {{"bytes", m.l1d.bytes}, {"ways", m.l1d.ways}}},
            {"ll", {{"bytes", m.ll.bytes}, {"ways", m.ll.ways}}},
            {"l1d_miss_cycles", m.l1d_miss_cycles},
            {"ll_miss_cycles", m.ll_miss_cycles},
            {"store_miss_factor", m.store_miss_factor},
            {"cycles", cycles},
            {"seed", m.seed},
            {"timing_bound", m.timing_bound}};
}

json counters_json(const CounterValues& values) {
    json o = json::object();
    for (const auto& [name, v] : values) o[name] = v;
    return o;
}

json dim_json(const DimResult& d) {
    json j{{"dim", d.dim},           {"cpe", d.cpe},         {"baseline_cpe", d.baseline_cpe},
           {"speedup", d.speedup},   {"samples", d.samples}, {"converged", d.converged}, {"call_cost_resolved", d.call_cost_resolved},
           {"speedup_call_cost_resolved", d.speedup_call_cost_resolved}};
    if (d.speedup_high > 0) j["speedup_interval"] = {d.speedup_low, d.speedup_high};
    if (d.typical_cpe > 0) j["typical_cpes"] = {{"cpe", d.typical_cpe}, {"baseline_cpe", d.typical_baseline_cpe}};
    if (!d.counters.empty()) j["counters"] = counters_json(d.counters);
    if (!d.simulated.empty()) j["simulated"] = counters_json(d.simulated);
    if (d.model)
        j["model"] = {{"cycles_per_pixel", d.model->cycles_per_pixel},
                      {"oracle_cycles_per_pixel", d.model->oracle_cycles_per_pixel},
                      {"speedup", d.model->speedup}};
    j["sample_cpes"] = d.sample_cpes;
    j["baseline_sample_cpes"] = d.baseline_sample_cpes;
    return j;
}

json variant_json(const VariantResult& v) {
    json dims = json::array();
    for (const auto& d : v.dims) dims.push_back(dim_json(d));
    json failure = nullptr;
    if (v.failure) {
        const auto& f = *v.failure;
        failure = {{"kind", f.kind_id()}, {"dim", f.dim}, {"wrong_pixels", f.wrong_pixels},
                   {"unwritten_pixels", f.unwritten_pixels}};
        if (f.first)
            failure["first"] = {{"row", f.first->row},
                                {"col", f.first->col},
                                {"expected", {f.first->expected.red, f.first->expected.green, f.first->expected.blue}},
                                {"actual", {f.first->actual.red, f.first->actual.green, f.first->actual.blue}}};
    }
    return {{"name", v.name},
            {"correct", v.correct},
            {"error", v.failure ? json(v.failure->summary()) : json(nullptr)},
            {"failure", failure},
            {"graded", v.graded},
            {"dims", dims},
            {"mean_speedup", v.complete() ? json(v.mean_speedup) : json(nullptr)},
            {"points", v.points ? json(*v.points) : json(nullptr)},
            {"model_mean_speedup", optional_value(v.model_mean_speedup)},
            {"model_points", optional_value(v.model_points)},
            {"model_flag", optional_value(v.model_flag)},
            {"converged", v.converged()}};
}

// What the run saw of the others on its machine, and the sentences the reports say of it.
json machine_load_json(const RunResult& run) {
    json before = json::array();
    for (const auto& c : run.cpus_before)
        before.push_back({{"cpu", c.cpu}, {"runnable", c.runnable}, {"busy_fraction", c.busy_fraction}});
    json j{{"cpus_before", before}, {"cpu_choice", optional_string(cpu_choice_line(run))},
           {"busy", optional_string(busy_line(run))}};
    if (run.interference)
        j["during"] = {{"waiting_fraction", run.interference->waiting_fraction},
                       {"steal_fraction", run.interference->steal_fraction},
                       {"seconds", run.interference->seconds}};
    auto spread = oracle_spread(run);
    j["oracle_spread"] = spread ? json(*spread) : json(nullptr);
    return j;
}

json kernel_json(const KernelResult& k) {
    json variants = json::array();
    for (const auto& v : k.variants) variants.push_back(variant_json(v));
    json best = nullptr;
    if (k.best) best = {{"name", k.variants[*k.best].name}, {"mean_speedup", k.variants[*k.best].mean_speedup}};
    return {{"dims", k.dims},
            {"baseline_cpes", k.baseline_cpes},
            {"notice", k.notice.empty() ? json(nullptr) : json(k.notice)},
            {"variants", variants},
            {"best", best},
            {"speed_of_light", k.speed_of_light ? variant_json(*k.speed_of_light) : json(nullptr)},
            {"points", k.points ? json(*k.points) : json(nullptr)},
            {"max_points", k.max_points},
            {"curve", k.curve},
            {"points_from", k.points ? json(k.points_from) : json(nullptr)}};
}

}  // namespace

std::string json_report(const RunResult& run) {
    json caches = json::array();
    for (const auto& c : run.machine.caches)
        caches.push_back({{"level", c.level},
                          {"type", c.type},
                          {"size_bytes", c.size_bytes},
                          {"ways", c.ways},
                          {"line_bytes", c.line_bytes},
                          {"source", c.source},
                          {"plausible", c.plausible},
                          {"shared_cpus", c.shared_cpus > 0 ? json(c.shared_cpus) : json(nullptr)}});
    json kernels = json::object();
    for (const auto& k : run.kernels) kernels[std::string(kernel_name(k.kernel))] = kernel_json(k);
    json team = nullptr;
    if (run.team)
        team = {{"team", run.team->team}, {"name1", run.team->name1}, {"email1", run.team->email1},
                {"name2", run.team->name2}, {"email2", run.team->email2}};
    json dims = json::object();
    for (const auto& k : run.kernels) dims[std::string(kernel_name(k.kernel))] = k.dims;
    json j{
        {"schema", "perflab-report-1"},
        {"driver", version_string()},
        {"machine",
         {{"cpu_model", run.machine.cpu_model},
          {"logical_cpus", run.machine.logical_cpus},
          {"clock",
           {{"name", run.clock.name},
            {"description", run.clock.description},
            {"frequency_hz", run.clock.ticks_per_second},
            {"pinned_cpu", run.clock.pinned_cpu >= 0 ? json(run.clock.pinned_cpu) : json(nullptr)}}},
          {"caches", caches}}},
        {"config",
         {{"dims", dims},
          {"seed", run.config.seed ? json(*run.config.seed) : json(nullptr)},
          {"k", run.config.kbest.k},
          {"epsilon", run.config.kbest.epsilon},
          {"max_samples", run.config.kbest.max_samples},
          {"ratio_tolerance", run.config.kbest.ratio_tolerance},
          {"baseline", run.config.baseline_mode},
          {"autograder", run.config.autograder},
          {"timeout_seconds", run.config.timeout_seconds},
          {"cache_clear_bytes", run.config.cache_clear_bytes},
          {"policy", run.config.policy_source}}},
        {"team", team},
        {"kernels", kernels},
        {"counters_unavailable", optional_string(run.counters_unavailable)},
        {"simulation_unavailable", optional_string(run.simulation_unavailable)},
        {"simulation_geometry", run.simulation_geometry.empty() ? json(nullptr) : json(run.simulation_geometry)},
        {"clock_notice", optional_string(run.clock_notice)},
        {"basis", basis_name(run.basis)},
        {"model", run.model ? model_json(*run.model) : json(nullptr)},
        {"model_unavailable", optional_string(run.model_unavailable)},
        {"total_points", run.total_points ? json(*run.total_points) : json(nullptr)},
        {"machine_load", machine_load_json(run)},
        {"host_output", host_printed_json(run.host_printed)},
    };
    // Descriptions are the student's bytes: keep valid UTF-8 intact and replace
    // only what is not UTF-8 rather than fail the whole report.
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void JsonReporter::finish(const RunResult& run) {
    write_file_atomically(path_, json_report(run));
}

}  // namespace perflab
