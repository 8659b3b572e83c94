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
    double change = 0;  // new fastest / old fastest - 1, of the samples judged
    double band = 0;    // the relative change the samples cannot tell from noise
};

// The verdict on one figure measured twice, from every sample of each run
// (lower is better); `k` is the K of the K-best scheme, how many of the fastest
// samples a figure stands for.
//
// A change counts only when it is larger than the band - twice the spread of
// either run's samples (how far their median lies above their fastest), plus
// twice `reference_noise` (the spread of whatever the samples were scaled by),
// never under 3% - and the new run's
// fastest sample lies beyond the old run's K-th fastest (or the other way
// round): the two sets of good samples do not overlap. Fewer than two samples
// on a side can never show a change.
SampleVerdict compare_samples(std::vector<double> old_samples, std::vector<double> new_samples, int k,
                              double reference_noise = 0);

// `samples` in units of the oracle's fastest sample of the same run (the runner
// times the oracle in turns with each variant), or empty without oracle samples:
// a machine that was slower throughout one run slows both, and the scaled
// samples do not move.
std::vector<double> in_oracle_units(const std::vector<double>& samples, const std::vector<double>& oracle);

// The relative spread of `samples`: (median - fastest) / fastest. Not the spread
// of the K fastest alone: samples taken one after another share the machine's
// state, so the K fastest agree more closely than two runs' fastest do; the
// median shows how noisy the machine was.
double sample_spread(std::vector<double> samples);

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

// Reads OLD.json and checks it is a perflab report with samples. Throws CompareError.
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
