#include "compare_reporter.hpp"

#include "compare.hpp"

namespace perflab {

void CompareReporter::finish(const RunResult& run) {
    const Comparison c = compare_reports(old_report_, nlohmann::json::parse(json_report(run)), old_source_);
    std::fputs(comparison_text(c).c_str(), out_);
    std::fflush(out_);
}

}  // namespace perflab
