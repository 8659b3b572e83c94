#include "mountain.hpp"

#include <algorithm>

namespace perflab {

namespace {

// CS:APP's test(): four accumulators so that the adds are not one dependency chain and
// the loop is limited by the loads alone. noinline so every size and stride run the
// same code; the result goes to a volatile sink so the loads cannot be dropped.
__attribute__((noinline)) long test(const long* data, long elems, long stride) {
    long i, sx2 = stride * 2, sx3 = stride * 3, sx4 = stride * 4;
    long acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    const long limit = elems - sx4;
    for (i = 0; i < limit; i += sx4) {
        acc0 = acc0 + data[i];
        acc1 = acc1 + data[i + stride];
        acc2 = acc2 + data[i + sx2];
        acc3 = acc3 + data[i + sx3];
    }
    for (; i < elems; i += stride) acc0 = acc0 + data[i];
    return (acc0 + acc1) + (acc2 + acc3);
}

volatile long sink;

}  // namespace

Mountain measure_mountain(Clock& clock, long* data, const MountainOptions& options) {
    Mountain m{options.sizes, options.strides, {}, {}};
    const std::size_t max_elems = options.sizes.empty() ? 0 : options.sizes.back() / sizeof(long);
    for (std::size_t i = 0; i < max_elems; ++i) data[i] = long(i);

    for (std::size_t size : options.sizes) {
        const long elems = long(size / sizeof(long));
        auto& row = m.mb_per_s.emplace_back();
        auto& ok = m.converged.emplace_back();
        for (int stride : options.strides) {
            const std::size_t loads = std::size_t(elems / stride);
            const std::size_t reps = std::max<std::size_t>(1, options.min_loads_per_sample / loads);
            sink = test(data, elems, stride);  // warm the caches, as the textbook's run() does
            const KBestResult r = k_best_timed(clock, [&] {
                for (std::size_t k = 0; k < reps; ++k) sink = test(data, elems, stride);
            }, options.kbest);
            const double seconds = r.best / clock.ticks_per_second();
            const double bytes = double(loads) * double(reps) * sizeof(long);
            row.push_back(bytes / seconds / 1e6);
            ok.push_back(r.converged);
        }
    }
    return m;
}

}  // namespace perflab
