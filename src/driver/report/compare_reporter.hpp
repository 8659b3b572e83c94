// ./driver --compare OLD.json on the terminal: the comparison table, printed once
// the run is scored.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "report.hpp"

namespace perflab {

class CompareReporter : public Reporter {
public:
    CompareReporter(std::FILE* out, nlohmann::json old_report, std::string old_source)
        : out_(out), old_report_(std::move(old_report)), old_source_(std::move(old_source)) {}
    void finish(const RunResult& run) override;

private:
    std::FILE* out_;
    nlohmann::json old_report_;
    std::string old_source_;
};

}  // namespace perflab
