#include "policy_calibration.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "common/read_file.hpp"
#include "reference.h"  // REF_ROTATE_TILE, which the descriptions in variants.def spell out
#include "trials.hpp"

namespace perflab::grader {
namespace {

struct ReferenceVariant {
    char letter;  // R or S, as the -d dump writes it
    const char* name;
    const char* description;
};
constexpr ReferenceVariant kReferenceVariants[] = {
#define REF_ROTATE(fn, name, description) {'R', name, description},
#define REF_SMOOTH(fn, name, description) {'S', name, description},
#include "variants.def"
};

// The description of the reference variant `name`, which the reference driver's
// -d dump must list.
std::string find_description(const std::string& dump, char kernel_letter, const std::string& name) {
    for (const ReferenceVariant& v : kReferenceVariants)
        if (v.letter == kernel_letter && v.name == name &&
            ("\n" + dump).find(fmt::format("\n{}:{}\n", kernel_letter, v.description)) != std::string::npos)
            return v.description;
    throw std::runtime_error(fmt::format("the reference driver registers no variant '{}' of reference/variants.def: "
                                         "rebuild it (make build/solutions-host)",
                                         name));
}

double mean_speedup(const nlohmann::json& report, const char* kernel, const std::string& description, Basis basis) {
    const char* key = speedup_key(basis);
    for (const auto& v : report["kernels"][kernel]["variants"])
        if (v.value("name", "") == description && v[key].is_number()) return v[key].get<double>();
    const nlohmann::json why = report.value("model_unavailable", nlohmann::json());
    throw std::runtime_error(fmt::format("the reference variant '{}' has no {}{}: run the reference driver by hand to see why",
                                         description, key, why.is_string() ? " (" + why.get<std::string>() + ")" : ""));
}

}  // namespace

ScoringPolicy calibrate_policy(const std::vector<std::string>& reference_driver, const std::vector<std::string>& driver_args,
                               const std::string& work_dir, ScoringPolicy base) {
    std::filesystem::create_directories(work_dir);
    const std::string dump = work_dir + "/variants.txt";
    std::vector<std::string> list = reference_driver;
    list.insert(list.end(), {"-q", "-d", dump});
    Finished listed = spawn(command(list, 60));
    if (!listed.exited_ok())
        throw std::runtime_error(fmt::format("'{}' did not list its variants: build it with make", fmt::join(list, " ")));
    const std::string text = read_file(dump).value_or("");
    std::string rotate = find_description(text, 'R', kFullMarksRotate);
    std::string smooth = find_description(text, 'S', kFullMarksSmooth);

    std::vector<std::string> args{"-t", "--variant", rotate, "--variant", smooth};
    // The model's figures come from the model the policy names, so the run reads it.
    if (base.basis == Basis::model) {
        const std::string policy = work_dir + "/policy.toml";
        write_file_atomically(policy, policy_to_toml(base, "The model to calibrate on."));
        args.insert(args.end(), {"--policy", policy});
    }
    args.insert(args.end(), driver_args.begin(), driver_args.end());
    SandboxSettings trusted;  // the reference code is ours: only the clock limits it
    DriverRun run = run_sandboxed(reference_driver, args, work_dir, trusted);
    if (!run.report)
        throw std::runtime_error(fmt::format("the reference driver gave no report (exit {}): {}", run.finished.exit_code,
                                             run.finished.output.substr(0, 200)));
    const double rs = mean_speedup(*run.report, "rotate", rotate, base.basis),
                 ss = mean_speedup(*run.report, "smooth", smooth, base.basis);
    for (double s : {rs, ss})
        if (s <= 1.0)
            throw std::runtime_error(fmt::format("a reference variant reached only speedup {:.2f} {}, so no curve from "
                                                 "1.0 can rise to it: {}",
                                                 s, base.basis == Basis::model ? "on the model machine" : "here",
                                                 base.basis == Basis::model
                                                     ? "check the policy's [model] table"
                                                     : "calibrate on a quieter machine or larger --dims"));
    ScoringPolicy p = std::move(base);
    p.rotate = linear_policy(50, 1.0, rs);
    p.smooth = linear_policy(50, 1.0, ss);
    p.warnings.clear();
    p.source = "calibrated";
    return p;
}

}  // namespace perflab::grader
