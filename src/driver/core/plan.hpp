// Options and the registered variants become a plan: which variants of which
// kernel are checked and timed at which dimensions, against which baseline.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "student.hpp"

namespace perflab {

struct KernelPlan {
    Kernel kernel;
    std::vector<Variant> variants;
    std::uint64_t graded_address = 0;  // rotate() or smooth() in the host, registered or not
    std::vector<int> dims;
    std::vector<double> fixed_baseline;  // per dim; empty = measure the oracle
    std::string notice;                  // why no variant is planned, if none is
};

struct Plan {
    std::vector<KernelPlan> kernels;
    KBestConfig kbest;
    std::optional<unsigned> seed;  // none: a secret key for the inputs
    unsigned timeout_seconds = 10;
    bool speed_of_light = false;
    std::string baseline_mode = "measured";
    // How misses are measured besides the time: PMU counters around each timed call,
    // cachegrind after each variant, and --explain's figures (the PMU where it opens,
    // else the simulation). The cache geometry is the user's, else this machine's.
    bool counters = false;
    std::vector<std::string> counter_events;  // empty: the defaults for this CPU
    bool simulate = false;
    std::optional<std::string> cache_geometry;
    bool explain = false;
    bool model = false;  // each variant on the policy's model machine too (docs/model.md)
};

// A problem with the user's request; its message is one line naming the remedy.
struct PlanError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Plan make_plan(const Options& options, const Registry& registry, const StudentFile& student,
               const std::optional<BaselineFile>& baseline);

// rotate()/smooth() timed although kernels.c does not register it: the grader
// times it all the same.
Variant unregistered_graded(Kernel k, std::uint64_t address);

// The name of a variant for --variant: its description up to the first ':'.
std::string short_name(const std::string& description);

// The classic -d file: R:<description> and S:<description> lines.
std::string function_list(const Registry& registry);

}  // namespace perflab
