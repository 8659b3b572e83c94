#include "plan.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace perflab {
namespace {

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t\r\n"));
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    return s;
}

// Descriptions named in a classic -f file, per kernel letter, with spaces at either
// end dropped (an editor's trailing space must not make a line name nothing).
std::set<std::pair<char, std::string>> read_function_file(const std::string& path) {
    std::error_code ec;
    std::ifstream in(path);
    if (!in || std::filesystem::is_directory(path, ec))
        throw PlanError(fmt::format("cannot read function file '{}': check the path (write one with -d)", path));
    std::set<std::pair<char, std::string>> wanted;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        auto colon = line.find(':');
        if (colon == std::string::npos || colon == 0) continue;
        wanted.emplace(line[0], trim(line.substr(colon + 1)));
    }
    return wanted;
}

bool matches(const Variant& v, const std::string& name) {
    return v.description == name || short_name(v.description) == name;
}

std::vector<double> baseline_for(const BaselineFile& file, Kernel k, const std::vector<int>& dims) {
    std::vector<double> out;
    const auto& cpes = file.of(k);
    for (int d : dims) {
        auto it = cpes.find(d);
        if (it == cpes.end())
            throw PlanError(fmt::format("baseline file '{}' has no {} CPE for dimension {}: recalibrate with "
                                        "./driver --calibrate --dims ... > FILE",
                                        file.source, kernel_name(k), d));
        out.push_back(it->second);
    }
    return out;
}

}  // namespace

Variant unregistered_graded(Kernel k, std::uint64_t address) {
    return {k, address, fmt::format("{}() function (graded; not registered)", kernel_name(k)), Variant::kGraded};
}

std::string short_name(const std::string& description) { return trim(description.substr(0, description.find(':'))); }

std::string function_list(const Registry& registry) {
    std::string out;
    for (Kernel k : kAllKernels)
        for (const auto& v : registry.of(k)) out += fmt::format("{}:{}\n", kernel_letter(k), v.description);
    return out;
}

Plan make_plan(const Options& options, const Registry& registry, const StudentFile& student,
               const std::optional<BaselineFile>& baseline) {
    Plan plan;
    plan.kbest = options.kbest;
    plan.seed = options.seed;
    plan.timeout_seconds = options.timeout_seconds;
    plan.speed_of_light = options.speed_of_light;
    // Naming what to count or the caches to simulate asks for it: ignoring them left a
    // TA's run without the rows and without a word.
    plan.counters = options.counters || !options.events.empty();
    plan.counter_events = options.events;
    plan.simulate = options.simulate || options.cache_geometry.has_value();
    plan.model = options.model;
    plan.cache_geometry = options.cache_geometry;
    plan.explain = options.explain;
    if (baseline) plan.baseline_mode = "file:" + baseline->source;

    std::optional<std::set<std::pair<char, std::string>>> listed;
    if (options.func_file && !options.autograder) listed = read_function_file(*options.func_file);

    std::set<std::string> unmatched(options.variants.begin(), options.variants.end());
    auto unlisted = listed ? *listed : std::set<std::pair<char, std::string>>{};
    for (Kernel k : kAllKernels) {
        if (options.only_kernel && *options.only_kernel != k) continue;
        KernelPlan kp{k, {}, student.graded(k), k == Kernel::rotate ? options.rotate_dims : options.smooth_dims, {}, {}};
        std::vector<Variant> candidates = registry.of(k);
        const Variant graded{k, student.graded(k), fmt::format("{}() function", kernel_name(k)), Variant::kGraded};
        const bool registers_graded = std::any_of(candidates.begin(), candidates.end(),
                                                  [&](const Variant& v) { return v.address == graded.address; });
        if (options.autograder) {
            candidates = {graded};
        } else if (candidates.empty()) {
            kp.notice = registry.dropped() > 0
                            ? fmt::format("no {} variant among the registrations the run takes: register fewer functions",
                                          kernel_name(k))
                            : fmt::format("no {0} variant registered: call add_{0}_function() in register_{0}_functions()",
                                          kernel_name(k));
        }
        // The Score line is the grader's figure, and the grader times rotate() and
        // smooth() whether or not they are registered: time the one left out too,
        // unless -f or --variant chose what to time.
        if (!options.autograder && !registers_graded && graded.address != 0 && !listed && options.variants.empty())
            candidates.push_back(unregistered_graded(k, graded.address));
        for (const auto& v : candidates) {
            if (listed) {
                const std::pair<char, std::string> line{kernel_letter(k), trim(v.description)};
                if (!listed->count(line)) continue;
                unlisted.erase(line);
            }
            if (!options.variants.empty()) {
                auto hit = std::find_if(options.variants.begin(), options.variants.end(),
                                        [&](const std::string& n) { return matches(v, n); });
                if (hit == options.variants.end()) continue;
                unmatched.erase(*hit);
            }
            kp.variants.push_back(v);
        }
        if (baseline) kp.fixed_baseline = baseline_for(*baseline, k, kp.dims);
        plan.kernels.push_back(std::move(kp));
    }
    // Only lines of the kernels this run times can be matched.
    std::erase_if(unlisted, [&](const auto& line) {
        return options.only_kernel && line.first != kernel_letter(*options.only_kernel);
    });
    if (!unlisted.empty()) {
        const auto& [letter, description] = *unlisted.begin();
        throw PlanError(fmt::format("function file '{}' lists {}:{}, which kernels.c does not register (write the "
                                    "registered ones with -d FILE -q)",
                                    *options.func_file, letter, description));
    }
    if (!unmatched.empty()) {
        // A short name several variants share selects them all: it cannot name one.
        std::map<std::string, int> short_names;
        for (const auto& v : registry.all()) ++short_names[short_name(v.description)];
        std::string known;
        for (const auto& v : registry.all()) {
            const std::string shorter = short_name(v.description);
            known += fmt::format("{}'{}'", known.empty() ? "" : ", ",
                                 short_names[shorter] == 1 ? shorter : v.description);
        }
        throw PlanError(fmt::format("no registered variant is called '{}' (registered: {})", *unmatched.begin(),
                                    known.empty() ? "none" : known));
    }
    return plan;
}

}  // namespace perflab
