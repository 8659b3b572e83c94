#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <sstream>

#include "common/read_file.hpp"
#include "common/statistics.hpp"

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

// The report a page written by --html embeds (as JSON, "<" escaped), or the text as
// it is: a page is what a student keeps, and it holds every sample the JSON does.
std::string embedded_report(const std::string& text) {
    const std::string open = "<script type=\"application/json\" id=\"perflab-report\">";
    const auto from = text.find(open);
    if (from == std::string::npos) return text;
    const auto start = from + open.size();
    return text.substr(start, text.find("</script>", start) - start);
}

// The most samples a row that found no change would have needed to resolve kResolveTarget.
int most_samples_needed(const Comparison& c) {
    int most = 0;
    for (const auto& r : c.rows)
        if (r.verdict.verdict == Verdict::within_noise) most = std::max(most, r.verdict.samples_needed);
    return most;
}

// What would let a comparison that could not resolve kResolveTarget do so.
std::string resolve_remedy(int samples_needed) {
    if (samples_needed <= 0) return "";
    constexpr int kMostSamples = 10000;  // --max-samples' limit
    if (samples_needed > kMostSamples)
        return fmt::format("To resolve a {:.0f}% change at this noise needs more than {} samples a run: time both on a "
                           "quieter machine.",
                           100 * kResolveTarget, kMostSamples);
    return fmt::format("To resolve a {:.0f}% change at this noise, time both runs with about {} samples "
                       "(--max-samples {} --ratio-tolerance 0), or on a quieter machine.",
                       100 * kResolveTarget, samples_needed, samples_needed);
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
    if (oracle == std::ssize(c.rows)) return "each round's sample over the oracle's in that round (vs oracle)";
    if (oracle == 0)
        return "as measured: no oracle was timed beside them (a fixed --baseline), so none is in oracle units (vs oracle -)";
    return "each round's sample over the oracle's in that round where both runs timed the oracle (vs oracle), else as "
           "measured (vs oracle -: a fixed --baseline times no oracle)";
}

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        default: return "within noise";
    }
}

std::vector<double> relative_to_oracle(const std::vector<double>& samples, const std::vector<double>& oracle) {
    std::vector<double> out;
    for (std::size_t i = 0; i < std::min(samples.size(), oracle.size()); ++i)
        if (samples[i] > 0 && oracle[i] > 0) out.push_back(samples[i] / oracle[i]);
    return out;
}

namespace {

constexpr int kMinSamples = 5;
constexpr double kZLevel = 1.959964;  // two-sided 5%
constexpr double kZPower = 0.841621;  // 80%: the change is found 4 times in 5
// The rank test's efficiency beside a t-test on normal noise (3/pi): it pays that
// little for needing no assumption about the noise's shape.
constexpr double kRankEfficiency = 3 / 3.14159265358979;

std::vector<double> logs(const std::vector<double>& v) {
    std::vector<double> out;
    for (double x : v)
        if (x > 0) out.push_back(std::log(x));
    return out;
}

// A robust standard deviation: 1.4826 median absolute deviations (one sample's
// outlier, an interrupt, moves it little).
double robust_sd(const std::vector<double>& v) {
    const double m = median(v);
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::abs(x - m));
    return 1.4826 * median(dev);
}

// Two-sided p of the Mann-Whitney U statistic, normal approximation with midranks.
double rank_test_p(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<std::pair<double, int>> all;
    for (double x : a) all.emplace_back(x, 0);
    for (double x : b) all.emplace_back(x, 1);
    std::sort(all.begin(), all.end());
    double rank_sum_a = 0;
    for (std::size_t i = 0; i < all.size();) {
        std::size_t j = i;
        while (j < all.size() && all[j].first == all[i].first) ++j;
        const double midrank = (double(i) + double(j) + 1) / 2;
        for (std::size_t t = i; t < j; ++t)
            if (all[t].second == 0) rank_sum_a += midrank;
        i = j;
    }
    const double n1 = double(a.size()), n2 = double(b.size());
    const double u = rank_sum_a - n1 * (n1 + 1) / 2;
    const double sd = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
    if (sd <= 0) return 1;
    return std::erfc(std::abs(u - n1 * n2 / 2) / sd / std::sqrt(2.0));
}

// The median of every difference new - old: the shift the rank test is about.
double hodges_lehmann_shift(const std::vector<double>& old_logs, const std::vector<double>& new_logs) {
    std::vector<double> d;
    d.reserve(old_logs.size() * new_logs.size());
    for (double o : old_logs)
        for (double n : new_logs) d.push_back(n - o);
    return median(d);
}

}  // namespace

SampleVerdict compare_samples(const std::vector<double>& old_samples, const std::vector<double>& new_samples) {
    SampleVerdict v;
    const std::vector<double> o = logs(old_samples), n = logs(new_samples);
    if (o.empty() || n.empty()) return v;
    v.change = std::exp(hodges_lehmann_shift(o, n)) - 1;
    const double sd = std::sqrt((robust_sd(o) * robust_sd(o) + robust_sd(n) * robust_sd(n)) / 2);
    auto resolvable = [&](double n1, double n2) {
        return std::exp((kZLevel + kZPower) * sd * std::sqrt(1 / n1 + 1 / n2) / std::sqrt(kRankEfficiency)) - 1;
    };
    const bool enough = int(o.size()) >= kMinSamples && int(n.size()) >= kMinSamples;
    v.band = std::max(kMinimumBand, enough ? resolvable(double(o.size()), double(n.size()))
                                           : std::numeric_limits<double>::infinity());
    if (!enough || v.band > kResolveTarget) {
        // Equal runs of n each resolve the target when (zl + zp) sd sqrt(2 / n) / sqrt(eff) = log(1 + target).
        const double per_run = 2 * std::pow((kZLevel + kZPower) * sd / std::log1p(kResolveTarget), 2) / kRankEfficiency;
        v.samples_needed = std::max(kMinSamples, int(std::ceil(per_run)));
    }
    if (!enough) return v;
    v.p_value = rank_test_p(o, n);
    if (v.p_value < 0.05 && std::abs(v.change) > kMinimumBand) v.verdict = v.change > 0 ? Verdict::slower : Verdict::faster;
    return v;
}

json load_old_report(const std::string& path) {
    const auto text = read_file(path);
    if (!text) throw CompareError(fmt::format("cannot read '{}': give a report written by ./driver --json FILE", path));
    json j = json::parse(embedded_report(*text), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw CompareError(fmt::format("'{}' is neither JSON nor a page with a report in it: give a report written by "
                                       "./driver --json FILE or --html FILE",
                                       path));
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
                    const std::vector<double> orel = relative_to_oracle(os, oo), nrel = relative_to_oracle(ns, no);
                    row.against_oracle = !orel.empty() && !nrel.empty();
                    row.verdict = row.against_oracle ? compare_samples(orel, nrel) : compare_samples(os, ns);
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
    std::string out = fmt::format(
        "\nCompared with {}: the change in CPE, and a rank test on both runs' samples, {}; each row says the least "
        "change it detects 4 times in 5 at its noise (5% level, at least 3%):\n",
        c.old_source, judged_basis(c));
    out += fmt::format("{:<7} {:<40} {:>5} {:>8} {:>8} {:>8} {:>10}  {}\n", "Kernel", "Variant", "Dim", "Old CPE", "New CPE",
                       "Change", "vs oracle", "Verdict");
    for (const auto& r : c.rows) {
        std::string name = r.variant.size() > 40 ? r.variant.substr(0, 39) + "~" : r.variant;
        const SampleVerdict& v = r.verdict;
        out += fmt::format("{:<7} {:<40} {:>5} {:>8.2f} {:>8.2f} {:>+7.1f}% {:>9}  {} (resolves {})\n", r.kernel, name,
                           r.dim, r.old_cpe, r.new_cpe, 100 * r.cpe_change,
                           r.against_oracle ? fmt::format("{:+.1f}%", 100 * v.change) : "-", verdict_name(v.verdict),
                           std::isfinite(v.band) ? fmt::format("±{:.1f}%", 100 * v.band) : "nothing: too few samples");
    }
    if (auto remedy = resolve_remedy(most_samples_needed(c)); !remedy.empty()) out += remedy + "\n";
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
                        {"band", std::isfinite(r.verdict.band) ? json(r.verdict.band) : json(nullptr)},
                        {"p_value", r.verdict.p_value},
                        {"samples_needed", r.verdict.samples_needed},
                        {"verdict", verdict_name(r.verdict.verdict)}});
    const std::string remedy = resolve_remedy(most_samples_needed(c));
    return {{"old", c.old_source}, {"judged", judged_basis(c)}, {"rows", rows},
            {"remedy", remedy.empty() ? json(nullptr) : json(remedy)}, {"renamed", c.renamed}, {"unmatched", c.unmatched}};
}

}  // namespace perflab
