#include "policy_calibration.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <stdexcept>

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

double mean_speedup(const nlohmann::json& report, const char* kernel, const std::string& description) {
    for (const auto& v : report["kernels"][kernel]["variants"])
        if (v.value("name", "") == description && v["mean_speedup"].is_number()) return v["mean_speedup"].get<double>();
    throw std::runtime_error(fmt::format("the reference variant '{}' was not timed correctly: run the reference "
                                         "driver by hand to see why",
                                         description));
}

}  // namespace

ScoringPolicy calibrate_policy(const std::vector<std::string>& reference_driver, const std::vector<std::string>& driver_args,
                               const std::string& work_dir) {
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
    args.insert(args.end(), driver_args.begin(), driver_args.end());
    SandboxSettings trusted;  // the reference code is ours: only the clock limits it
    DriverRun run = run_sandboxed(reference_driver, args, work_dir, trusted);
    if (!run.report)
        throw std::runtime_error(fmt::format("the reference driver gave no report (exit {}): {}", run.finished.exit_code,
                                             run.finished.output.substr(0, 200)));
    double rs = mean_speedup(*run.report, "rotate", rotate), ss = mean_speedup(*run.report, "smooth", smooth);
    for (double s : {rs, ss})
        if (s <= 1.0)
            throw std::runtime_error(fmt::format("a reference variant reached only speedup {:.2f} here, so no curve from "
                                                 "1.0 can rise to it: calibrate on a quieter machine or larger --dims",
                                                 s));
    ScoringPolicy p;
    p.rotate = linear_policy(50, 1.0, rs);
    p.smooth = linear_policy(50, 1.0, ss);
    p.source = "calibrated";
    return p;
}

}  // namespace perflab::grader
