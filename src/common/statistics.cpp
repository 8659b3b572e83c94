#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace perflab {

double geometric_mean(std::span<const double> values) {
    if (values.empty()) return 0;
    double log_sum = 0;
    for (double v : values) log_sum += std::log(v);
    return std::exp(log_sum / double(values.size()));
}

double mean(std::span<const double> values) {
    if (values.empty()) return 0;
    double sum = 0;
    for (double v : values) sum += v;
    return sum / double(values.size());
}

double coefficient_of_variation(std::span<const double> values) {
    if (values.size() < 2) return 0;
    double m = mean(values), ss = 0;
    for (double v : values) ss += (v - m) * (v - m);
    return std::sqrt(ss / double(values.size() - 1)) / m;
}

double relative_spread(std::span<const double> values) {
    if (values.size() < 2) return 0;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    return *lo > 0 ? *hi / *lo - 1 : std::numeric_limits<double>::infinity();
}

double median(std::span<const double> values) {
    if (values.empty()) return 0;
    std::vector<double> v(values.begin(), values.end());
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Interval median_interval(std::span<const double> values) {
    const double m = median(values);
    if (values.size() < 2) return {m, m};
    const double half = 1.96 * 1.2533 * coefficient_of_variation(values) * mean(values) / std::sqrt(double(values.size()));
    return {m - half, m + half};
}

namespace {

// Average ranks (ties share theirs); Spearman is Pearson on them.
std::vector<double> ranks(std::span<const double> v) {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        for (std::size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2 + 1;
        i = j + 1;
    }
    return r;
}

}  // namespace

double spearman(std::span<const double> a, std::span<const double> b) {
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double ma = mean(ra), mb = mean(rb);
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace perflab
