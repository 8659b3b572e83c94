// What the user asked of the driver, whichever way it was asked (the command line
// parses into it, cli/options.hpp): the plan is made from it.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "common/sampler.hpp"
#include "driver/core/kernel.hpp"
#include "lab_settings.hpp"

namespace perflab {

inline constexpr int kMaxDim = 8192;  // 2 x 384 MiB of images and their copies: fits a 24 GiB host
inline constexpr int kOddDim = 96;    // the classic driver's extra correctness dimension

struct Options {
    // Classic.
    bool quit_after_dump = false;   // -q
    bool autograder = false;        // -g
    bool skip_team_check = false;   // -t
    std::optional<std::string> func_file;  // -f
    std::optional<std::string> dump_file;  // -d
    // -s, --seed: reproducible inputs. Without it the inputs come from a secret
    // key drawn for the run, so that no kernel can predict them.
    std::optional<unsigned> seed;

    // perflab.
    std::vector<int> rotate_dims{std::begin(kLabDims), std::end(kLabDims)};
    std::vector<int> smooth_dims{std::begin(kLabDims), std::end(kLabDims)};
    bool dims_chosen = false;  // --dims or --classic-dims: the policy's dims do not apply
    std::optional<Kernel> only_kernel;
    std::vector<std::string> variants;
    std::optional<std::string> json_path;
    std::optional<std::string> html_path;     // --html FILE: the self-contained page
    std::optional<std::string> compare_path;  // --compare OLD.json: an earlier --json report
    KBestConfig kbest;
    std::optional<std::string> baseline_file;
    bool calibrate = false;
    bool check_options = false;  // stop once the options, baseline and policy are read and the host has started
    std::optional<std::string> policy_file;
    bool verbose = false;
    bool speed_of_light = false;
    unsigned timeout_seconds = 10;
    std::optional<int> cpu;

    // Cache-miss evidence.
    bool counters = false;
    std::vector<std::string> events;
    std::string clock = "tsc";
    bool simulate = false;
    std::optional<std::string> cache_geometry;
    bool model = false;  // --model, or the policy's basis is the model
    bool explain = false;

    // The kernel hosts (default: kernel-host and reference-host beside the driver),
    // and whether to confine the student's in a sandbox (the grader does).
    std::optional<std::string> host, reference_host;
    bool sandbox = false;
};

}  // namespace perflab
