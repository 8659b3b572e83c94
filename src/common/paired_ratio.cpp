#include "paired_ratio.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "statistics.hpp"

namespace perflab {

double RatioEstimate::half_width() const {
    if (value <= 0 || pairs < kMinPairs) return std::numeric_limits<double>::infinity();
    return (high - low) / 2 / value;
}

RatioEstimate paired_ratio(std::span<const double> numerator, std::span<const double> denominator) {
    std::vector<std::pair<double, double>> pairs;  // (ratio, denominator)
    for (std::size_t i = 0; i < std::min(numerator.size(), denominator.size()); ++i)
        if (numerator[i] > 0 && denominator[i] > 0) pairs.emplace_back(numerator[i] / denominator[i], denominator[i]);
    RatioEstimate r;
    r.pairs = int(pairs.size());
    if (pairs.empty()) return r;
    std::sort(pairs.begin(), pairs.end());
    std::vector<double> ratios;
    for (const auto& p : pairs) ratios.push_back(p.first);
    r.value = median(ratios);
    const int n = r.pairs;
    const std::size_t mid = std::size_t(n) / 2;
    r.median_denominator = n % 2 ? pairs[mid].second : (pairs[mid - 1].second + pairs[mid].second) / 2;
    if (n < kMinPairs) {
        r.low = ratios.front();
        r.high = ratios.back();
        return r;
    }
    // The ranks between which the median lies with ~95% probability: the
    // binomial(n, 1/2) quantiles by the normal approximation, 1-based.
    const double z = 1.96, half = z * std::sqrt(double(n)) / 2;
    const int lo = std::max(1, int(std::floor(n / 2.0 - half)));
    const int hi = std::min(n, int(std::ceil(1 + n / 2.0 + half)));
    r.low = ratios[std::size_t(lo - 1)];
    r.high = ratios[std::size_t(hi - 1)];
    return r;
}

}  // namespace perflab
