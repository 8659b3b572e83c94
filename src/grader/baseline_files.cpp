#include "baseline_files.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

namespace perflab::grader {
namespace fs = std::filesystem;

namespace {

std::optional<MeasuredBaseline> from_name(const fs::path& file) {
    if (file.extension() != ".toml") return std::nullopt;
    const std::string stem = file.stem().string(), slurm = "slurm-";
    MeasuredBaseline m;
    m.path = file.string();
    m.from_slurm = stem.rfind(slurm, 0) == 0;
    const std::string rest = m.from_slurm ? stem.substr(slurm.size()) : stem;
    const auto sep = rest.find(m.from_slurm ? '_' : '-');
    if (sep == std::string::npos) return std::nullopt;
    try {
        m.order = {std::stoll(rest.substr(0, sep)), std::stoll(rest.substr(sep + 1))};
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (m.order.second < 0) return std::nullopt;
    if (!m.from_slurm) {
        m.started_ns = m.order.first;
        m.after_handins = std::size_t(m.order.second);
    }
    return m;
}

}  // namespace

std::vector<MeasuredBaseline> measured_baselines(const std::string& dir) {
    std::vector<MeasuredBaseline> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (auto m = from_name(e.path())) found.push_back(std::move(*m));
    std::sort(found.begin(), found.end(), [](const MeasuredBaseline& a, const MeasuredBaseline& b) {
        return std::tie(a.order, a.from_slurm, a.path) < std::tie(b.order, b.from_slurm, b.path);
    });
    return found;
}

}  // namespace perflab::grader
