#include "hierarchy.hpp"

#include "huge_buffer.hpp"
#include "latency.hpp"
#include "line_size.hpp"
#include "common/machine.hpp"

#include <algorithm>
#include <bit>

namespace perflab {

namespace {

// Working sets up to this are measured in several rounds (see keep_fastest).
constexpr std::size_t kRepeatedBytes = std::size_t{16} << 20;

// The measured levels beside the reported ones, matched by position: the probe cannot
// tell an L2 from an L3 other than by order. A reported level the curve did not show
// stays in the table with no measured size.
std::vector<ProbeLevel> pair_levels(const Hierarchy& measured, const MachineInfo& machine,
                                    double core_ghz) {
    std::vector<ProbeLevel> out;
    std::size_t count = measured.caches.size();
    for (const auto& c : machine.caches) count = std::max<std::size_t>(count, std::size_t(c.level));
    for (std::size_t i = 0; i < count; ++i) {
        ProbeLevel p;
        p.level = int(i) + 1;
        if (i < measured.caches.size()) {
            const Level& m = measured.caches[i];
            p.size_bytes = m.size_bytes;
            p.latency_ns = m.latency_ns;
            p.latency_cycles = m.latency_ns * core_ghz;
            p.certain = m.certain;
            p.why = m.why;
        } else {
            p.why = "no knee for this level in the latency curve";
        }
        if (const CacheLevel* r = machine.level(p.level)) {
            p.reported_bytes = r->size_bytes;
            p.reported_source = r->source;
            p.reported_plausible = r->plausible;
            p.reported_shared_cpus = r->shared_cpus;
        }
        out.push_back(p);
    }
    return out;
}

}  // namespace

WaysEstimate judge_l1d_ways(WaysEstimate ways, const ProbeLevel* l1) {
    if (ways.certain && !(l1 && l1->certain)) {
        ways.certain = false;
        ways.why = "the L1d size its lines are spaced by is uncertain";
    }
    return ways;
}

ProbeResult probe_hierarchy(Clock& clock, const HierarchyOptions& options, int cpu) {
    const std::uint64_t t0 = monotonic_ns();
    const MachineInfo machine = read_machine_info(cpu);
    ProbeResult r;
    r.cpu_model = machine.cpu_model;
    r.cpu = cpu;
    r.clock = clock.describe();
    // First, as it also brings the core up from an idle clock to its working one.
    r.core_ghz = measure_core_hz(clock) / 1e9;

    CurveOptions curve_options;
    curve_options.seed = options.seed;
    curve_options.kbest = options.quick ? KBestConfig{3, 0.03, 5} : KBestConfig{3, 0.02, 9};
    curve_options.sample_ns = options.quick ? 1e6 : 2e6;

    const std::size_t max_bytes = std::max(options.max_bytes, std::size_t{4} << 20);
    HugeBuffer buffer(max_bytes);
    r.huge_pages = buffer.describe();

    r.split_loads = measure_split_loads(clock, buffer.data(), curve_options);
    const LineEstimate line = find_line_size(r.split_loads);
    r.line_bytes = line.line_bytes;
    r.line_certain = line.certain;
    r.line_why = line.why;
    const CacheLevel* l1 = machine.l1d();
    r.reported_line_bytes = l1 ? l1->line_bytes : 0;

    // One node per line: a smaller spacing would let neighbours share a line and hide
    // misses. Without a measured line, the reported one, and 64 B as the last resort.
    curve_options.line = std::size_t(r.line_bytes ? r.line_bytes
                                     : r.reported_line_bytes ? r.reported_line_bytes : 64);
    const auto sizes = size_grid(std::size_t{4} << 10, max_bytes, 4);
    r.latency_curve = measure_latency_curve(clock, buffer.data(), sizes, curve_options);
    // Further rounds only over what caches can hold: DRAM-sized points are the slow ones
    // to measure, and a neighbour's share of a cache does not move them.
    const int rounds = options.quick ? 2 : 3;
    std::vector<std::size_t> cache_sized;
    for (std::size_t size : sizes)
        if (size <= kRepeatedBytes) cache_sized.push_back(size);
    for (int round = 1; round < rounds; ++round)
        keep_fastest(r.latency_curve,
                     measure_latency_curve(clock, buffer.data(), cache_sized, curve_options));
    const Hierarchy measured = find_levels(r.latency_curve);
    r.levels = pair_levels(measured, machine, r.core_ghz);
    if (measured.memory) {
        r.memory_latency_ns = measured.memory->latency_ns;
        r.memory_latency_cycles = measured.memory->latency_ns * r.core_ghz;
        r.memory_certain = measured.memory->certain;
    }

    // Lines a power of two >= L1d size apart share one set whatever the ways, since
    // sets x line = size / ways is a power of two no larger than the size.
    const std::size_t l1_size = !measured.caches.empty() && measured.caches[0].size_bytes
                                    ? measured.caches[0].size_bytes
                                    : l1 ? l1->size_bytes : std::size_t{32} << 10;
    const std::size_t stride = std::bit_ceil(l1_size);
    const int max_n = int(std::min<std::size_t>(32, buffer.size() / stride));
    r.same_set = measure_same_set_chase(clock, buffer.data(), stride, max_n, curve_options);
    for (int round = 1; round < rounds; ++round)
        keep_fastest(r.same_set,
                     measure_same_set_chase(clock, buffer.data(), stride, max_n, curve_options));
    const WaysEstimate ways = judge_l1d_ways(find_ways(r.same_set), r.level(1));
    r.l1d_ways = ways.ways;
    r.l1d_ways_certain = ways.certain;
    r.l1d_ways_why = ways.why;
    r.reported_l1d_ways = l1 ? l1->ways : 0;

    r.seconds = double(monotonic_ns() - t0) / 1e9;
    return r;
}

}  // namespace perflab
