#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <sstream>

namespace perflab {
namespace {

using nlohmann::json;

constexpr double kMinimumBand = 0.03;  // below 3% two runs on a shared machine cannot be told apart

std::vector<double> numbers(const json& j, const char* key) {
    std::vector<double> out;
    if (j.contains(key) && j[key].is_array())
        for (const auto& x : j[key])
            if (x.is_number()) out.push_back(x.get<double>());
    return out;
}

std::string machine_line(const json& r) {
    const json& m = r["machine"];
    std::string caches;
    for (const auto& c : m["caches"])
        if (c.value("plausible", true))
            caches += fmt::format(" L{}{}={}K", c.value("level", 0), c.value("type", "") == "Data" ? "d" : "",
                                  c.value("size_bytes", 0) >> 10);
    return fmt::format("'{}' ({} CPUs,{})", m.value("cpu_model", "?"), m.value("logical_cpus", 0), caches);
}

// Each new variant's partner among the old ones, or null: the variant of the same
// name, else, for the graded function, the old report's graded one. It is the same
// rotate()/smooth() under another name: -g names it "rotate() function", a normal
// run by the description it is registered under (or "... (graded; not
// registered)"), and either run may have renamed it.
std::vector<const json*> partners(const json& old_variants, const json& new_variants) {
    std::vector<const json*> out(new_variants.size());
    auto free = [&](const json& ov) { return std::find(out.begin(), out.end(), &ov) == out.end(); };
    for (std::size_t i = 0; i < new_variants.size(); ++i)
        for (const auto& ov : old_variants)
            if (!out[i] && free(ov) && ov.value("name", "") == new_variants[i].value("name", "")) out[i] = &ov;
    for (std::size_t i = 0; i < new_variants.size(); ++i)
        if (!out[i] && new_variants[i].value("graded", false))
            for (const auto& ov : old_variants)
                if (!out[i] && ov.value("graded", false) && free(ov)) out[i] = &ov;
    return out;
}

std::string not_compared(const Comparison& c) {
    std::string out;
    for (const auto& r : c.renamed) out += fmt::format("compared under another name: {}\n", r);
    for (const auto& u : c.unmatched) out += fmt::format("not compared: {}\n", u);
    return out;
}

}  // namespace

const char* judged_basis(const Comparison& c) {
    if (c.rows.empty()) return "as no variant was measured at the same dim, and passed its check, in both runs";
    const auto oracle = std::count_if(c.rows.begin(), c.rows.end(), [](const ComparisonRow& r) { return r.against_oracle; });
    if (oracle == std::ssize(c.rows)) return "each in units of its run's fastest oracle sample (vs oracle)";
    if (oracle == 0)
        return "as measured: no oracle was timed beside them (a fixed --baseline), so none is in oracle units (vs oracle -)";
    return "each in units of its run's fastest oracle sample where both runs timed the oracle (vs oracle), else as "
           "measured (vs oracle -: a fixed --baseline times no oracle)";
}

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        default: return "within noise";
    }
}

double sample_spread(std::vector<double> samples) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    const double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return samples[0] > 0 ? (median - samples[0]) / samples[0] : 0;
}

std::vector<double> in_oracle_units(const std::vector<double>& samples, const std::vector<double>& oracle) {
    if (oracle.empty() || samples.empty()) return {};
    const double best = *std::min_element(oracle.begin(), oracle.end());
    if (best <= 0) return {};
    std::vector<double> out;
    for (double s : samples) out.push_back(s / best);
    return out;
}

SampleVerdict compare_samples(std::vector<double> old_s, std::vector<double> new_s, int k, double reference_noise) {
    SampleVerdict v;
    std::sort(old_s.begin(), old_s.end());
    std::sort(new_s.begin(), new_s.end());
    if (old_s.empty() || new_s.empty() || old_s[0] <= 0) return v;
    v.change = new_s[0] / old_s[0] - 1;
    v.band = std::max(kMinimumBand,
                      2 * std::max(sample_spread(old_s), sample_spread(new_s)) + 2 * reference_noise);
    if (old_s.size() < 2 || new_s.size() < 2) return v;  // one sample shows no spread: nothing to decide from
    const std::size_t ko = std::min<std::size_t>(std::max(k, 1), old_s.size()) - 1;
    const std::size_t kn = std::min<std::size_t>(std::max(k, 1), new_s.size()) - 1;
    if (v.change > v.band && new_s[0] > old_s[ko]) v.verdict = Verdict::slower;
    // Faster is the same test from the other side: the old run's fastest lies beyond the new K-th.
    if (old_s[0] / new_s[0] - 1 > v.band && old_s[0] > new_s[kn]) v.verdict = Verdict::faster;
    return v;
}

json load_old_report(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CompareError(fmt::format("cannot read '{}': give a report written by ./driver --json FILE", path));
    std::stringstream ss;
    ss << in.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw CompareError(fmt::format("'{}' is not JSON: give a report written by ./driver --json FILE", path));
    if (j.value("schema", "") != "perflab-report-1")
        throw CompareError(fmt::format("'{}' is not a perflab-report-1 report (an --explain report?): give one written "
                                       "by ./driver --json FILE",
                                       path));
    for (const auto& [name, k] : j["kernels"].items())
        for (const auto& v : k["variants"])
            for (const auto& d : v["dims"])
                if (!d.contains("sample_cpes"))
                    throw CompareError(fmt::format("'{}' carries no per-sample CPEs (an older driver wrote it): "
                                                   "rerun the old code with this driver's --json",
                                                   path));
    return j;
}

void check_comparable(const json& old_r, const json& new_r) {
    const std::string o = machine_line(old_r), n = machine_line(new_r);
    if (o != n)
        throw CompareError(fmt::format("the old report was measured on another machine ({}; this one is {}): "
                                       "compare runs from the same machine",
                                       o, n));
    const json& os = old_r["config"]["seed"];
    const json& ns = new_r["config"]["seed"];
    if (!os.is_null() && !ns.is_null() && os != ns)
        throw CompareError(fmt::format("the old report used seed {} and this run seed {}: rerun with -s {}", os.dump(),
                                       ns.dump(), os.dump()));
}

Comparison compare_reports(const json& old_r, const json& new_r, const std::string& old_source) {
    check_comparable(old_r, new_r);
    Comparison c;
    c.old_source = old_source;
    const int k = new_r["config"].value("k", 3);
    for (const auto& [kernel, nk] : new_r["kernels"].items()) {
        const json* ok = old_r["kernels"].contains(kernel) ? &old_r["kernels"][kernel] : nullptr;
        const std::vector<const json*> partner = ok ? partners((*ok)["variants"], nk["variants"])
                                                    : std::vector<const json*>(nk["variants"].size());
        for (std::size_t i = 0; i < nk["variants"].size(); ++i) {
            const json& nv = nk["variants"][i];
            const std::string name = nv.value("name", "");
            const json* ov = partner[i];
            if (!ov) {
                c.unmatched.push_back(fmt::format("{}: {} (new)", kernel, name));
                continue;
            }
            if (ov->value("name", "") != name)
                c.renamed.push_back(fmt::format("{}: {} is {} in the old report (both the graded {}())", kernel, name,
                                                ov->value("name", ""), kernel));
            // A variant that failed its check in either run has no figures to set beside the other's.
            // Failed in both, it is said once, with this run's reason: the old one is in the old report.
            const bool new_failed = !nv.value("correct", true), old_failed = !ov->value("correct", true);
            if (new_failed || old_failed) {
                const json& failed = new_failed ? nv : *ov;
                const json& error = failed.contains("error") ? failed["error"] : json();
                c.unmatched.push_back(fmt::format("{}: {}: failed its check {}{}", kernel, name,
                                                  !old_failed ? "this time" : !new_failed ? "in the old report" : "in both runs",
                                                  error.is_string() ? " (" + error.get<std::string>() + ")" : ""));
                continue;
            }
            std::vector<int> new_only, old_dims;
            for (const auto& od : (*ov)["dims"]) old_dims.push_back(od.value("dim", 0));
            for (const auto& nd : nv["dims"]) {
                const int dim = nd.value("dim", 0);
                if (std::find(old_dims.begin(), old_dims.end(), dim) == old_dims.end()) new_only.push_back(dim);
                for (const auto& od : (*ov)["dims"]) {
                    if (od.value("dim", 0) != dim) continue;
                    ComparisonRow row{kernel, name, dim, od.value("cpe", 0.0), nd.value("cpe", 0.0)};
                    row.cpe_change = row.old_cpe > 0 ? row.new_cpe / row.old_cpe - 1 : 0;
                    // The oracle is the same code in both runs and was timed in turns with
                    // each variant: in units of its fastest sample, what the machine did
                    // between the runs cancels out, and its own spread adds to the noise.
                    // A fixed baseline has no oracle samples: the raw samples are judged.
                    const std::vector<double> os = numbers(od, "sample_cpes"), ns = numbers(nd, "sample_cpes");
                    const std::vector<double> oo = numbers(od, "baseline_sample_cpes"), no = numbers(nd, "baseline_sample_cpes");
                    const std::vector<double> orel = in_oracle_units(os, oo), nrel = in_oracle_units(ns, no);
                    row.against_oracle = !orel.empty() && !nrel.empty();
                    row.verdict = row.against_oracle
                                      ? compare_samples(orel, nrel, k, std::max(sample_spread(oo), sample_spread(no)))
                                      : compare_samples(os, ns, k);
                    c.rows.push_back(row);
                }
            }
            std::vector<int> old_only, new_dims;
            for (const auto& nd : nv["dims"]) new_dims.push_back(nd.value("dim", 0));
            for (int dim : old_dims)
                if (std::find(new_dims.begin(), new_dims.end(), dim) == new_dims.end()) old_only.push_back(dim);
            if (!new_only.empty())
                c.unmatched.push_back(fmt::format("{}: {} at {} (the old report has {})", kernel, name,
                                                  fmt::join(new_only, ", "), fmt::join(old_dims, ", ")));
            if (!old_only.empty())
                c.unmatched.push_back(fmt::format("{}: {} at {}: not measured this time (this run has {})", kernel, name,
                                                  fmt::join(old_only, ", "), fmt::join(new_dims, ", ")));
        }
        if (ok)
            for (const auto& ov : (*ok)["variants"])
                if (std::find(partner.begin(), partner.end(), &ov) == partner.end())
                    c.unmatched.push_back(fmt::format("{}: {}: not measured this time (only in the old report)", kernel,
                                                      ov.value("name", "")));
    }
    for (const auto& [kernel, ok] : old_r["kernels"].items())
        if (!new_r["kernels"].contains(kernel))
            c.unmatched.push_back(fmt::format("{}: not measured this time (only in the old report; --kernel {} "
                                              "measures it)",
                                              kernel, kernel));
    return c;
}

std::string comparison_text(const Comparison& c) {
    if (c.rows.empty())
        return fmt::format("\nCompared with {}: no verdict, {}:\n", c.old_source, judged_basis(c)) + not_compared(c);
    std::string out = fmt::format("\nCompared with {}: the change in CPE, and the verdict from both runs' samples, {}:\n",
                                  c.old_source, judged_basis(c));
    out += fmt::format("{:<7} {:<40} {:>5} {:>8} {:>8} {:>8} {:>10}  {}\n", "Kernel", "Variant", "Dim", "Old CPE", "New CPE",
                       "Change", "vs oracle", "Verdict");
    for (const auto& r : c.rows) {
        std::string name = r.variant.size() > 40 ? r.variant.substr(0, 39) + "~" : r.variant;
        out += fmt::format("{:<7} {:<40} {:>5} {:>8.2f} {:>8.2f} {:>+7.1f}% {:>9}  {} (noise band ±{:.1f}%)\n", r.kernel,
                           name, r.dim, r.old_cpe, r.new_cpe, 100 * r.cpe_change,
                           r.against_oracle ? fmt::format("{:+.1f}%", 100 * r.verdict.change) : "-",
                           verdict_name(r.verdict.verdict), 100 * r.verdict.band);
    }
    return out + not_compared(c);
}

json comparison_json(const Comparison& c) {
    json rows = json::array();
    for (const auto& r : c.rows)
        rows.push_back({{"kernel", r.kernel},
                        {"variant", r.variant},
                        {"dim", r.dim},
                        {"old_cpe", r.old_cpe},
                        {"new_cpe", r.new_cpe},
                        {"change", r.cpe_change},
                        {"against_oracle", r.against_oracle},
                        {"judged_change", r.verdict.change},
                        {"band", r.verdict.band},
                        {"verdict", verdict_name(r.verdict.verdict)}});
    return {{"old", c.old_source}, {"judged", judged_basis(c)}, {"rows", rows}, {"renamed", c.renamed}, {"unmatched", c.unmatched}};
}

}  // namespace perflab
