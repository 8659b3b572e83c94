#include "slurm_baselines.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "calibration.hpp"
#include "common/statistics.hpp"

namespace perflab::grader {

using nlohmann::json;

nlohmann::json compare_baselines(const std::vector<NodeBaseline>& baselines) {
    auto median_by_dim = [&](auto member) {
        std::map<int, std::vector<double>> all;
        for (const auto& b : baselines)
            for (const auto& [dim, cpe] : b.*member) all[dim].push_back(cpe);
        std::map<int, double> med;
        for (auto& [dim, v] : all) med[dim] = median(v);
        return med;
    };
    const auto rotate_median = median_by_dim(&NodeBaseline::rotate);
    const auto smooth_median = median_by_dim(&NodeBaseline::smooth);
    std::vector<double> rot_dev, smo_dev, all_dev;
    for (const auto& b : baselines) {
        rot_dev.push_back(drift_percent(rotate_median, b.rotate));
        smo_dev.push_back(drift_percent(smooth_median, b.smooth));
        all_dev.push_back(rot_dev.back());
        all_dev.push_back(smo_dev.back());
    }
    // A robust scale (median absolute deviation) so one slow node cannot hide
    // itself by widening the threshold; never below 10%, which ordinary noise
    // between identical nodes stays under at the dimensions graded.
    double threshold = 10;
    if (all_dev.size() >= 4) {
        std::vector<double> abs_dev;
        double m = median(all_dev);
        for (double d : all_dev) abs_dev.push_back(std::fabs(d - m));
        threshold = std::max(threshold, 3 * 1.4826 * median(abs_dev));
    }
    json list = json::array();
    std::set<std::string> outlier_nodes;
    auto cpes = [](const std::map<int, double>& by_dim) {
        json o = json::object();
        for (const auto& [dim, cpe] : by_dim) o[std::to_string(dim)] = cpe;
        return o;
    };
    for (std::size_t i = 0; i < baselines.size(); ++i) {
        const auto& b = baselines[i];
        bool outlier = std::fabs(rot_dev[i]) > threshold || std::fabs(smo_dev[i]) > threshold;
        if (outlier) outlier_nodes.insert(b.node);
        list.push_back({{"node", b.node},
                        {"task", b.task},
                        {"file", b.file},
                        {"measured_on", b.measured_on},
                        {"rotate_cpe", cpes(b.rotate)},
                        {"smooth_cpe", cpes(b.smooth)},
                        {"deviation_percent", {{"rotate", rot_dev[i]}, {"smooth", smo_dev[i]}}},
                        {"outlier", outlier}});
    }
    auto spread = [](const std::vector<double>& v) {
        return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
    };
    return {{"baselines", list},
            {"spread_percent", {{"rotate", spread(rot_dev)}, {"smooth", spread(smo_dev)}}},
            {"outlier_threshold_percent", threshold},
            {"outlier_nodes", json(std::vector<std::string>(outlier_nodes.begin(), outlier_nodes.end()))}};
}

}  // namespace perflab::grader
