#include "calibration.hpp"


#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "common/host_name.hpp"
#include "build.hpp"
#include "common/statistics.hpp"
#include "common/toml_file.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {

double drift_percent(const std::map<int, double>& first, const std::map<int, double>& now) {
    std::vector<double> ratios;
    for (const auto& [dim, cpe] : now)
        if (auto it = first.find(dim); it != first.end() && it->second > 0 && cpe > 0) ratios.push_back(cpe / it->second);
    return ratios.empty() ? 0 : (geometric_mean(ratios) - 1) * 100;
}

namespace {
// The TOML's first line is a comment that ends "Measured on CPU with CLOCK.".
std::string measured_on(const std::string& toml) {
    std::string comment = toml.substr(0, toml.find('\n'));
    auto on = comment.find("Measured on ");
    return on == std::string::npos ? comment : comment.substr(on + 12);
}
}  // namespace

Calibrator::Calibrator(const Layout& layout, const std::string& work_dir, std::vector<std::string> driver_args,
                       SandboxSettings sandbox)
    : driver_(driver_command(layout, link_trusted_host(layout, work_dir, kCalibrationKernelsSource))),
      driver_args_(std::move(driver_args)),
      sandbox_(sandbox) {}

std::string Calibrator::measure(const std::string& toml_path, std::size_t after_handins) {
    std::vector<std::string> argv = driver_;
    argv.push_back("--calibrate");
    argv.insert(argv.end(), driver_args_.begin(), driver_args_.end());
    Finished f = spawn(command(argv, sandbox_.wall_seconds, 1 << 20));
    if (!f.exited_ok())
        throw std::runtime_error(fmt::format("measuring the baseline failed ({}): check --driver-args",
                                             f.output.empty() ? "no output" : f.output.substr(0, f.output.find('\n'))));
    BaselineFile b = parse_baseline(f.output, toml_path);
    std::filesystem::create_directories(std::filesystem::path(toml_path).parent_path());
    write_file_atomically(toml_path, f.output);
    measurements_.push_back({toml_path, after_handins, b, measured_on(f.output), false});
    return toml_path;
}

void Calibrator::adopt(const std::string& toml_path, std::size_t after_handins) {
    for (const auto& m : measurements_)
        if (m.path == toml_path) return;
    try {
        std::string text = read_text_file(toml_path, "baseline");
        measurements_.push_back({toml_path, after_handins, parse_baseline(text, toml_path), measured_on(text), false});
    } catch (const std::exception&) {
        measurements_.push_back({toml_path, after_handins, {}, "", true});
    }
}

nlohmann::json Calibrator::report() const {
    nlohmann::json baselines = nlohmann::json::array();
    auto present = std::find_if(measurements_.begin(), measurements_.end(), [](const auto& m) { return !m.missing; });
    for (const auto& m : measurements_) {
        if (m.missing) {
            baselines.push_back({{"file", m.path}, {"after_handins", m.after_handins}, {"missing", true}});
            continue;
        }
        const auto& first = present->baseline;
        auto cpes = [](const std::map<int, double>& by_dim) {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& [dim, cpe] : by_dim) o[std::to_string(dim)] = cpe;
            return o;
        };
        baselines.push_back({{"file", m.path},
                             {"after_handins", m.after_handins},
                             {"measured_on", m.measured_on},
                             {"rotate_cpe", cpes(m.baseline.rotate)},
                             {"smooth_cpe", cpes(m.baseline.smooth)},
                             {"drift_percent",
                              {{"rotate", drift_percent(first.rotate, m.baseline.rotate)},
                               {"smooth", drift_percent(first.smooth, m.baseline.smooth)}}}});
    }
    return {{"host", host_name()}, {"baselines", baselines}};
}

}  // namespace perflab::grader
