#include "slurm_state.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/toml_file.hpp"

namespace perflab::grader {
using nlohmann::json;

SlurmState read_slurm_state(const std::string& path) {
    SlurmState state;
    if (!std::filesystem::exists(path)) return state;
    const json j = json::parse(read_text_file(path, "state"), nullptr, false);
    if (!j.is_object()) return state;
    try {
        if (j.contains("next_submission")) state.next_submission = j["next_submission"].get<int>();
        if (j.contains("submissions"))
            for (const auto& s : j["submissions"])
                state.submissions.push_back({s.at("number").get<int>(), s.at("job").get<std::string>(),
                                             s.at("tasks").get<std::vector<std::vector<std::string>>>()});
        if (j.contains("attempts")) state.attempts = j["attempts"].get<std::map<std::string, int>>();
    } catch (const json::exception&) {
        return SlurmState{};
    }
    return state;
}

void write_slurm_state(const std::string& path, const SlurmState& state) {
    json submissions = json::array();
    for (const auto& s : state.submissions) submissions.push_back({{"number", s.number}, {"job", s.job}, {"tasks", s.tasks}});
    const json j = {{"next_submission", state.next_submission}, {"submissions", submissions}, {"attempts", state.attempts}};
    write_file_atomically(path, j.dump(2) + "\n");
}

}  // namespace perflab::grader
