#include "platforms.hpp"

#include <fmt/format.h>

#include "tenths.hpp"

namespace perflab::grader {
namespace {

using nlohmann::json;

json test_entry(const char* name, double points, double max_points, const std::optional<double>& speedup,
                const Record& r) {
    // The maximum in tenths as well: a policy's 12.25 is shown 12.3, as full marks are,
    // never a score above its maximum.
    const double shown_max = tenths(max_points);
    std::string output = speedup ? fmt::format("{}(): speedup {:.2f} -> {:.1f} of {} points", name, *speedup,
                                               tenths(points), shown_max)
                                 : fmt::format("{}(): not scored ({}: {})", name, status_id(r.status), r.reason);
    return {{"name", fmt::format("{} performance", name)},
            {"score", tenths(points)},
            {"max_score", shown_max},
            {"output", output},
            {"visibility", "visible"}};
}

}  // namespace

std::string autolab_line(const Record& r) {
    json line{{"scores", {{"rotate", tenths(r.rotate_points)}, {"smooth", tenths(r.smooth_points)}}},
              {"scoreboard", {sum_of_tenths(r.rotate_points, r.smooth_points), tenths(r.rotate_speedup.value_or(0)),
                              tenths(r.smooth_speedup.value_or(0))}}};
    return line.dump();
}

json gradescope_results(const Record& r, const ScoringPolicy& policy, const std::string& feedback) {
    return {{"score", sum_of_tenths(r.rotate_points, r.smooth_points)},
            {"output", feedback},
            {"visibility", "visible"},
            {"stdout_visibility", "hidden"},
            {"tests",
             {test_entry("rotate", r.rotate_points, policy.rotate.max_points, r.rotate_speedup, r),
              test_entry("smooth", r.smooth_points, policy.smooth.max_points, r.smooth_speedup, r)}},
            {"leaderboard",
             {{{"name", "Total"}, {"value", sum_of_tenths(r.rotate_points, r.smooth_points)}},
              {{"name", "Rotate speedup"}, {"value", tenths(r.rotate_speedup.value_or(0))}},
              {{"name", "Smooth speedup"}, {"value", tenths(r.smooth_speedup.value_or(0))}}}}};
}

}  // namespace perflab::grader
