#include "settings_check.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "build.hpp"
#include "common/subprocess.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {

void check_settings(const GradeSettings& grade, const std::optional<std::string>& fixed_baseline,
                    const std::string& work_dir) {
    std::filesystem::create_directories(work_dir);
    const std::string host = link_trusted_host(grade.layout, work_dir, kCalibrationKernelsSource);
    const std::string policy = work_dir + "/policy.toml";
    write_file_atomically(policy, policy_to_toml(grade.policy, "The grader's policy (" + grade.policy.source + ")."));
    std::vector<std::string> argv = driver_command(grade.layout, host);
    // --check-options stops once the options, the baseline and the policy are read and
    // the baseline matched to the dimensions: every check a hand-in's run would fail
    // on, and no timing.
    // --sandbox: the hosts start as a hand-in's will, so a sandbox that cannot reach
    // them stops the batch here rather than failing every hand-in.
    argv.insert(argv.end(), {"-g", "-t", "--policy", policy, "--check-options", "--sandbox"});
    if (fixed_baseline) argv.insert(argv.end(), {"--baseline", std::filesystem::absolute(*fixed_baseline).string()});
    argv.insert(argv.end(), grade.driver_args.begin(), grade.driver_args.end());
    Finished f = spawn(command(argv, grade.sandbox.wall_seconds));
    if (f.exited_ok()) return;
    std::string said = f.output.substr(0, f.output.find('\n'));
    if (said.empty()) said = "it " + f.describe();
    throw std::runtime_error(fmt::format("the driver refuses the grading settings before any hand-in is graded ({}): "
                                         "fix --driver-args{}, then run the same command again",
                                         said, fixed_baseline ? " or --baseline" : ""));
}

}  // namespace perflab::grader
