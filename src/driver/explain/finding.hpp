// One conclusion of --explain: what was seen (evidence), what it means and what
// to try next. Checks produce findings; reports only format them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "driver/core/kernel.hpp"

namespace perflab {

// problem: likely why the speedup is stuck; warning: the figures or the build may
// mislead; info: context worth knowing; ok: checked, nothing to fix (kept so the
// evidence of a clean check stays readable, e.g. by tests).
enum class Severity { problem, warning, info, ok };

constexpr std::string_view severity_name(Severity s) {
    switch (s) {
        case Severity::problem: return "problem";
        case Severity::warning: return "warning";
        case Severity::info: return "info";
        case Severity::ok: return "ok";
    }
    return "?";
}

// A named figure (per-pixel counts, CPEs, byte sizes) or a fact (a flag, a path).
using EvidenceValue = std::variant<double, std::string>;
using Evidence = std::vector<std::pair<std::string, EvidenceValue>>;

struct Finding {
    std::string id;  // stable, documented in docs/explain.md
    Severity severity = Severity::info;
    std::optional<Kernel> kernel;
    std::optional<std::string> variant;  // the registered description it is about
    std::string title;                   // one line
    Evidence evidence;
    std::string meaning;
    std::string advice;
};

}  // namespace perflab
