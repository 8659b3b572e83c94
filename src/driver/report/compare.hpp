// ./driver --compare OLD.json: this run against an earlier --json report, per
// variant and dimension, with a verdict decided from both runs' samples rather
// than from two single figures.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace perflab {

enum class Verdict { faster, slower, within_noise };
const char* verdict_name(Verdict v);  // "faster", "slower", "within noise"

struct SampleVerdict {
    Verdict verdict = Verdict::within_noise;
    double change = 0;   // the typical change, new / old - 1 (the Hodges-Lehmann shift of the log samples)
    double band = 0;     // the least change this comparison detects 4 times in 5 at its noise (at least 3%)
    double p_value = 1;  // of the rank test, two-sided
    // Samples per run that would resolve kResolveTarget at this noise; 0 when `band`
    // already does.
    int samples_needed = 0;
};

// The change a comparison should resolve; a coarser one earns a remedy.
inline constexpr double kResolveTarget = 0.05;

// The verdict on one figure measured twice, from every sample of each run (lower is
// better): a Wilcoxon-Mann-Whitney rank test on the logs of the samples at the 5%
// level. A change counts when the test rejects "no change" and it is beyond 3% (two
// runs of the same code on a shared machine differ by that much). Fewer than 5
// samples on a side decide nothing.
SampleVerdict compare_samples(const std::vector<double>& old_samples, const std::vector<double>& new_samples);

// Each round's sample over the oracle's in the same round (the runner times them in
// turns), or empty without oracle samples: a machine that was slower for a while
// slows both, and the ratios do not move.
std::vector<double> relative_to_oracle(const std::vector<double>& samples, const std::vector<double>& oracle);

struct ComparisonRow {
    std::string kernel, variant;
    int dim = 0;
    double old_cpe = 0, new_cpe = 0;
    double cpe_change = 0;     // new_cpe / old_cpe - 1
    bool against_oracle = false;  // the verdict judged samples relative to the oracle's
    SampleVerdict verdict{};
};

struct Comparison {
    std::string old_source;               // the OLD.json path, for the heading
    std::vector<ComparisonRow> rows;      // variants and dims present in both runs, named as this run names them
    std::vector<std::string> renamed;     // variants the old report names otherwise, each with why they pair
    std::vector<std::string> unmatched;   // kernels, variants and dims in one run only, each with why
};

// Two reports that cannot be compared; the message is one line with the reason.
struct CompareError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads OLD (a --json report, or a page written by --html, which embeds it) and
// checks it is a perflab report with samples. Throws CompareError.
nlohmann::json load_old_report(const std::string& path);

// Throws CompareError unless `old_report` was measured on the machine `new_report`
// describes, with the same explicit seed (two runs without -s are comparable:
// their inputs come from fresh secret keys, drawn alike).
void check_comparable(const nlohmann::json& old_report, const nlohmann::json& new_report);

Comparison compare_reports(const nlohmann::json& old_report, const nlohmann::json& new_report,
                           const std::string& old_source);

// What the rows' verdicts were judged on: the oracle's units, or (with a fixed
// --baseline, which times no oracle) the samples as measured; or, without a
// row, that nothing was judged.
const char* judged_basis(const Comparison& c);

std::string comparison_text(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace perflab
