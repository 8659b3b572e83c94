// Baselines measured on the grading host: once at the start of a batch and
// again every M hand-ins, with the drift between them, so an instructor can see
// whether the machine stayed the machine the speedups were measured against.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/core/baseline.hpp"
#include "layout.hpp"
#include "trials.hpp"

namespace perflab::grader {

class Calibrator {
public:
    // Links a kernel host of the grader's own naive kernels under `work_dir`.
    Calibrator(const Layout& layout, const std::string& work_dir, std::vector<std::string> driver_args,
               SandboxSettings sandbox);

    // Runs `driver --calibrate`, stores the TOML as `toml_path` and returns the path.
    // Throws std::runtime_error with the driver's message.
    std::string measure(const std::string& toml_path, std::size_t after_handins);

    // Lists a baseline an earlier run into the same DIR measured (records still
    // point to it) before this run's own; one that is gone is listed as missing.
    void adopt(const std::string& toml_path, std::size_t after_handins);

    // Host, clock, every baseline and its drift against the first, as JSON.
    nlohmann::json report() const;

private:
    struct Measurement {
        std::string path;
        std::size_t after_handins = 0;
        BaselineFile baseline;
        std::string measured_on;  // the TOML's comment: CPU and clock
        bool missing = false;     // adopted, but no longer readable
    };
    std::vector<std::string> driver_;
    std::vector<std::string> driver_args_;
    SandboxSettings sandbox_;
    std::vector<Measurement> measurements_;
};

// Percent change of `now` against `first` per kernel: the geometric mean of the
// per-dimension CPE ratios, minus one.
double drift_percent(const std::map<int, double>& first, const std::map<int, double>& now);

}  // namespace perflab::grader
