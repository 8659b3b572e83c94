// The reports. Each reads a RunResult and writes one format; none measures.
#pragma once

#include <cstdio>
#include <string>

#include "driver/core/results.hpp"

namespace perflab {

struct TextReportOptions {
    bool autograder = false;  // end with bestscores: instead of the summary
    bool verbose = false;
    bool show_score = true;
};

// The classic report, written as results arrive so a student sees each table as
// soon as it is measured.
class TextReport {
public:
    TextReport(std::FILE* out, TextReportOptions options) : out_(out), options_(options) {}
    void header(const RunResult& run);
    void kernel_started(const KernelResult& kernel);
    void variant(const KernelResult& kernel, const VariantResult& variant);
    void summary(const RunResult& run);

private:
    std::FILE* out_;
    TextReportOptions options_;
    bool explained_unconverged_ = false;
};

// The documented JSON report (schema "perflab-report-1"; see README.md).
std::string json_report(const RunResult& run);

}  // namespace perflab
