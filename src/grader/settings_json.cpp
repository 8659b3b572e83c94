#include "settings_json.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace perflab::grader {
using nlohmann::json;

json grade_settings_json(const GradeSettings& g) {
    return {{"trials", g.trials},
            {"max_trials", g.most_trials()},
            {"driver_args", g.driver_args},
            {"wall_timeout", g.sandbox.wall_seconds},
            {"cpu_seconds", g.sandbox.cpu_seconds},
            {"memory_bytes", g.sandbox.memory_bytes},
            {"processes", g.sandbox.processes},
            {"open_files", g.sandbox.open_files},
            {"file_size_bytes", g.sandbox.file_size_bytes},
            {"compile_timeout", g.build.compile_seconds}};
}

void read_grade_settings(const json& j, GradeSettings& g) {
    auto get = [&](const char* key, auto& into) {
        try {
            into = j.at(key).get<std::remove_reference_t<decltype(into)>>();
        } catch (const json::exception&) {
            throw std::runtime_error(fmt::format("the grading settings lack a valid \"{}\": resubmit the batch with this "
                                                 "grader",
                                                 key));
        }
    };
    get("trials", g.trials);
    get("max_trials", g.max_trials);
    get("driver_args", g.driver_args);
    get("wall_timeout", g.sandbox.wall_seconds);
    get("cpu_seconds", g.sandbox.cpu_seconds);
    get("memory_bytes", g.sandbox.memory_bytes);
    get("processes", g.sandbox.processes);
    get("open_files", g.sandbox.open_files);
    get("file_size_bytes", g.sandbox.file_size_bytes);
    get("compile_timeout", g.build.compile_seconds);
}

}  // namespace perflab::grader
