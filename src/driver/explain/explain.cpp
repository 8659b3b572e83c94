#include "explain.hpp"

#include <cstdio>

#include "common/atomic_file.hpp"

namespace perflab {

int run_explain(const ExplainSetup& setup, const char* argv0) {
    const ExplainData data = measure_for_explain(setup);
    const std::vector<Finding> findings = explain_checks(data);
    const auto& json_path = setup.options.json_path;
    if (!json_path || *json_path != "-") std::fputs(explain_text(data, findings).c_str(), stdout);
    std::fflush(stdout);
    if (json_path) {
        try {
            write_file_atomically(*json_path, explain_json(data, findings));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", argv0, e.what());
            return 1;
        }
    }
    return 0;
}

}  // namespace perflab
