// The speedup estimator: a variant and the oracle timed in turns, one sample of
// each per round, give one ratio per round. Both samples of a round saw the same
// moment of the machine (a frequency step, a neighbour's burst), so the ratio
// cancels what the minimum of each series cannot: measured here on the shared
// 2-core VMs, byte-identical code scored 0.72-1.33 by min/min and 0.93-1.10 by
// the median of the paired ratios. The median ignores the rounds that one side
// lost to an interrupt; its order-statistic interval needs no assumption about
// the noise's distribution, so a figure says honestly how sure it is.
#pragma once

#include <span>

namespace perflab {

// Below this many rounds the interval is the whole range: no decision is taken on it.
inline constexpr int kMinPairs = 8;

struct RatioEstimate {
    double value = 0;  // median of numerator[i] / denominator[i]
    double low = 0;    // ~95% interval of that median (distribution-free)
    double high = 0;
    int pairs = 0;
    // The denominator of the pair whose ratio is the median (the mean of the middle
    // two's for an even count): the typical sample the ratio stands for, so that a
    // report can show two figures that divide to `value`.
    double median_denominator = 0;
    // Half the interval's width over the value: the figure's +/- as a fraction;
    // infinite below kMinPairs, where no interval is trusted.
    double half_width() const;
};

// Pairs numerator[i] with denominator[i] for i below the shorter length; pairs
// with a non-positive member are skipped. Fewer than kMinPairs pairs give an
// interval spanning every ratio.
RatioEstimate paired_ratio(std::span<const double> numerator, std::span<const double> denominator);

}  // namespace perflab
