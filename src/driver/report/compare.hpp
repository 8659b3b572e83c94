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
// either run's K fastest samples, never under 3% - and the new run's fastest
// sample lies beyond the old run's K-th fastest (or the other way round): the
// two sets of good samples do not overlap. Fewer than two samples on a side can
// never show a change.
SampleVerdict compare_samples(std::vector<double> old_samples, std::vector<double> new_samples, int k);

// Each sample over the oracle's sample of the same round (the runner times them
// in turns), or empty when the two are not paired: a slow spell of the machine
// slows both and leaves the ratio.
std::vector<double> oracle_relative(const std::vector<double>& samples, const std::vector<double>& oracle);

// The relative spread of the k fastest of `samples`: (k-th fastest - fastest) / fastest.
double k_fastest_spread(std::vector<double> samples, int k);

struct ComparisonRow {
    std::string kernel, variant;
    int dim = 0;
    double old_cpe = 0, new_cpe = 0;
    double cpe_change = 0;     // new_cpe / old_cpe - 1
    bool against_oracle = false;  // the verdict judged samples relative to the oracle's
    SampleVerdict verdict;
};

struct Comparison {
    std::string old_source;               // the OLD.json path, for the heading
    std::vector<ComparisonRow> rows;      // variants and dims present in both runs
    std::vector<std::string> unmatched;   // "rotate: NAME" only in one run
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

std::string comparison_text(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace perflab
