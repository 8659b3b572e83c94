// The task side of a Slurm batch: `grader slurm-task --batch DIR --submission K
// --task N`, run by sbatch on a compute node. It grades its shard with the same
// schedule a local batch uses (batch_schedule.hpp), with a baseline measured on this node,
// and leaves one record file per hand-in for the submitting grader to commit.
#include <stdlib.h>

#include <filesystem>
#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/host_name.hpp"
#include "common/scratch_dir.hpp"
#include "batch_schedule.hpp"
#include "calibration.hpp"
#include "settings_json.hpp"
#include "slurm.hpp"
#include "static_checks.hpp"
#include "common/toml_file.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

int run_slurm_task(const std::string& out_dir, int submission, int task) {
    const std::string out = fs::absolute(out_dir).string();
    SlurmFiles files(out);
    if (!fs::exists(files.plan(submission)))
        throw std::runtime_error(fmt::format("no plan {} on this node: DIR must be on a filesystem every node mounts at "
                                             "the same path as the submitting host (see docs/grader.md, Slurm)",
                                             files.plan(submission)));
    json plan = json::parse(read_text_file(files.plan(submission), "plan"));
    const json& shards = plan.at("shards");
    if (task < 0 || std::size_t(task) >= shards.size())
        throw std::runtime_error(fmt::format("task {} is not in {} ({} tasks): resubmit the batch", task,
                                             files.plan(submission), shards.size()));
    const json& s = plan.at("settings");
    GradeSettings grade;
    grade.layout = find_layout(s.at("perflab").get<std::string>());
    read_grade_settings(s, grade);
    grade.policy = load_policy(s.at("policy").get<std::string>());
    const std::string fixed_baseline = s.at("fixed_baseline").get<std::string>();

    const std::string node = host_name();
    const char* job = getenv("SLURM_ARRAY_JOB_ID");
    const std::string tag = fmt::format("{}_{}", job && *job ? job : "local", task);

    // Building and running happen on the node's own disk, not the shared one.
    const ScratchDir scratch("perflab-task");
    const std::string& tmpl = scratch.path();

    Calibrator calibrator(grade.layout, tmpl + "/calibration", grade.driver_args, grade.sandbox);
    std::set<std::string> library_names = library_symbols(grade.layout.driver);
    grade.build.library_names = &library_names;
    // Nodes differ: each task measures the oracle on its node, so batch.json can
    // flag a node that is far off. The hand-ins are scored as in a local batch: each
    // run times the oracle beside its kernels, unless a fixed baseline was given.
    // Under the model basis no timing counts, so there is no node to compare.
    std::string measured = fixed_baseline;
    if (measured.empty() && grade.policy.basis == Basis::timing) {
        measured = calibrator.measure(files.baseline_toml(tag + "-" + node), 0);
        json b = calibrator.report()["baselines"][0];
        json summary = {{"node", node},           {"task", tag},
                        {"file", measured},       {"measured_on", b["measured_on"]},
                        {"rotate_cpe", b["rotate_cpe"]}, {"smooth_cpe", b["smooth_cpe"]}};
        write_file_atomically(files.baselines_dir() + "/" + tag + ".json", summary.dump(2) + "\n");
    }
    fmt::print(stderr, "perflab slurm task {} on {}: {} hand-in(s), node baseline {}\n", tag, node, shards[task].size(),
               measured.empty() ? "none" : measured);

    std::vector<Handin> shard;
    for (const auto& h : shards[task])
        shard.push_back({h.at("id").get<std::string>(), h.at("path").get<std::string>(), h.at("problem").get<std::string>()});
    ScheduleHooks hooks;
    hooks.baseline = [&](std::size_t) { return fixed_baseline; };
    hooks.graded = [&](const Graded& graded) {
        Graded g = graded;
        g.record.node = node;
        json file = {{"record", to_json(g.record)}, {"feedback", g.feedback}, {"task", tag}};
        if (g.report) file["report"] = *g.report;
        write_file_atomically(files.records_dir() + "/" + g.record.id + ".json",
                              file.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
        fmt::print(stderr, "{}: {}\n", g.record.id, status_id(g.record.status));
    };
    grade_all(shard, grade, tmpl, schedule_for(grade.policy.basis, s.at("jobs").get<std::size_t>()), hooks);
    return 0;
}

}  // namespace perflab::grader
