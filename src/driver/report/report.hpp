// The reports. One interface, one implementation per format (text, JSON, HTML);
// the runner's observer drives them and none of them measures: they only read
// results.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/core/results.hpp"
#include "driver/core/runner.hpp"

namespace perflab {

// What every report is told, in this order: the run's context (machine, clock,
// configuration, team) before anything is measured; each kernel as it starts and
// each variant as soon as it is measured; the whole scored run at the end.
// A report that can only be written whole (JSON, HTML) waits for finish().
class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void start(const RunResult& context) { (void)context; }
    virtual void kernel_started(const KernelResult& kernel) { (void)kernel; }
    virtual void variant_done(const KernelResult& kernel, const VariantResult& variant) {
        (void)kernel;
        (void)variant;
    }
    // Throws std::runtime_error (one line, cause and remedy) when it cannot write.
    virtual void finish(const RunResult& run) = 0;
};

struct TextReportOptions {
    bool autograder = false;  // end with bestscores: instead of the summary
    bool verbose = false;
    bool show_score = true;
};

// The classic report, written as results arrive so a student sees each table as
// soon as it is measured.
class TextReporter : public Reporter {
public:
    TextReporter(std::FILE* out, TextReportOptions options) : out_(out), options_(options) {}
    void start(const RunResult& context) override;
    void kernel_started(const KernelResult& kernel) override;
    void variant_done(const KernelResult& kernel, const VariantResult& variant) override;
    void finish(const RunResult& run) override;

private:
    void variant_table(const KernelResult& kernel, const VariantResult& variant);
    void model_rows(const VariantResult& variant);  // under the table: the model's figures, or why none
    // The marks' meanings, each said once per run, under the first table that has it.
    void footnotes(const std::vector<DimResult>& dims);
    void legend(bool paired);
    void summary(const RunResult& run);

    std::FILE* out_;
    TextReportOptions options_;
    bool explained_unconverged_ = false, explained_unconverged_alone_ = false;
    bool explained_unresolved_ = false;
    bool explained_speedup_unresolved_ = false;
    bool explained_paired_ = false, explained_fixed_ = false;
    KBestConfig kbest_;  // what the footnotes' thresholds are
};

// The documented JSON report (schema "perflab-report-1"; see README.md).
std::string json_report(const RunResult& run);

// Writes json_report() to a file, or to stdout for "-".
class JsonReporter : public Reporter {
public:
    explicit JsonReporter(std::string path) : path_(std::move(path)) {}
    void finish(const RunResult& run) override;

private:
    std::string path_;
};

// Several reports fed the same events, in order.
class Reporters : public Reporter {
public:
    void add(std::unique_ptr<Reporter> r) { reporters_.push_back(std::move(r)); }
    bool empty() const { return reporters_.empty(); }
    void start(const RunResult& context) override;
    void kernel_started(const KernelResult& kernel) override;
    void variant_done(const KernelResult& kernel, const VariantResult& variant) override;
    void finish(const RunResult& run) override;

private:
    std::vector<std::unique_ptr<Reporter>> reporters_;
};

// The runner's observer that hands each kernel and each finished variant to `r`.
// `measured` is left for the measuring stages (the simulation) to fill.
RunnerObserver observer_for(Reporter& r);

}  // namespace perflab
