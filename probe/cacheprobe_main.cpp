// cacheprobe: measures the line size, the data-cache capacities and latencies and the
// L1d ways, prints them beside what the OS/CPUID reports, and saves them for the
// driver's tile advice and the cache simulation. See docs/probe.md.
#include "common/affinity.hpp"
#include "common/atomic_file.hpp"
#include "common/cli_range.hpp"
#include "common/clock.hpp"
#include "common/machine.hpp"
#include "hierarchy.hpp"
#include "common/probe_result.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>

namespace perflab {
namespace {

std::string bytes_text(std::size_t bytes) {
    if (bytes == 0) return "?";
    if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
        return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

std::string reported_text(const ProbeLevel& l) {
    if (l.reported_source.empty()) return "not reported";
    return fmt::format("{} ({}{}{})", bytes_text(l.reported_bytes), l.reported_source,
                       l.reported_plausible ? "" : ", implausible", sharing_text(l.reported_shared_cpus));
}

void print_table(const ProbeResult& r, const std::string& saved_to) {
    fmt::print("cacheprobe: {}, pinned to {}\n", r.cpu_model,
               r.cpu >= 0 ? fmt::format("CPU {}", r.cpu) : std::string("no CPU (pinning failed)"));
    fmt::print("clock: {}\n", r.clock);
    fmt::print("core clock: {:.2f} GHz (dependent adds); cycles below are core cycles\n", r.core_ghz);
    fmt::print("huge pages: {}\n\n", r.huge_pages);

    const auto mark = [](bool certain) { return certain ? " " : "?"; };
    fmt::print("{:<11} {:>10}  {:>9} {:>9}   {}\n", "", "measured", "ns", "cycles",
               "reported (source)");
    fmt::print("{:<11} {:>9}{}  {:>9} {:>9}   {}\n", "line size",
               r.line_bytes ? fmt::format("{} B", r.line_bytes) : "?", mark(r.line_certain), "", "",
               r.reported_line_bytes ? fmt::format("{} B", r.reported_line_bytes) : "not reported");
    for (const ProbeLevel& l : r.levels) {
        const std::string name = l.level == 1 ? "L1d" : fmt::format("L{}", l.level);
        const bool seen = l.latency_ns > 0;
        fmt::print("{:<11} {:>9}{}  {:>9} {:>9}   {}\n", name, bytes_text(l.size_bytes),
                   mark(l.certain), seen ? fmt::format("{:.2f}", l.latency_ns) : "",
                   seen ? fmt::format("{:.1f}", l.latency_cycles) : "", reported_text(l));
        if (l.level == 1)
            fmt::print("{:<11} {:>9}{}  {:>9} {:>9}   {}\n", "L1d ways",
                       r.l1d_ways ? std::to_string(r.l1d_ways) : "?", mark(r.l1d_ways_certain), "",
                       "", r.reported_l1d_ways ? std::to_string(r.reported_l1d_ways) : "not reported");
    }
    if (r.memory_latency_ns)
        fmt::print("{:<11} {:>9}{}  {:>9.1f} {:>9.0f}\n", "memory", "", mark(r.memory_certain),
                   *r.memory_latency_ns, r.memory_latency_cycles);
    else
        fmt::print("{:<11} {:>10}  (the curve never reached memory: try a larger --max-mib)\n",
                   "memory", "?");

    bool any_doubt = !r.line_certain || !r.l1d_ways_certain || !r.memory_certain;
    for (const auto& l : r.levels) any_doubt |= !l.certain;
    if (any_doubt) {
        fmt::print("\n? = uncertain, not a guess to rely on:\n");
        if (!r.line_certain) fmt::print("  line size: {}\n", r.line_why);
        for (const auto& l : r.levels)
            if (!l.certain) fmt::print("  L{}: {}\n", l.level, l.why);
        if (!r.l1d_ways_certain) fmt::print("  L1d ways: {}\n", r.l1d_ways_why);
        if (!r.memory_certain && r.memory_latency_ns)
            fmt::print("  memory: its samples disagreed\n");
    }
    fmt::print("\n{}took {:.1f} s\n", saved_to.empty() ? "" : "saved to " + saved_to + "; ",
               r.seconds);
}

int fail(const std::string& message) {
    fmt::print(stderr, "cacheprobe: {}\n", message);
    return 1;
}

int run(int argc, char** argv) {
    CLI::App app{"Measures the cache line size, the capacity and latency of each data-cache "
                 "level and of memory, and the L1d ways, beside what the OS/CPUID reports.",
                 "cacheprobe"};
    app.set_version_flag("--version", "cacheprobe (perflab) 1.0");
    bool quick = false, no_save = false;
    std::string json_to, save_to = default_probe_result_path();
    std::size_t max_mib = 256;
    int cpu = -1;
    app.add_flag("--quick", quick, "fewer and shorter samples, curve up to 64 MiB (under 5 s)");
    auto* json_opt = app.add_option("--json", json_to,
                                    "print the result as JSON instead of the table, to stdout or "
                                    "to FILE")
                         ->expected(0, 1)
                         ->type_name("[FILE]");
    app.add_option("--save", save_to, "where to keep the result for the driver")
        ->capture_default_str()
        ->type_name("FILE");
    app.add_flag("--no-save", no_save, "do not write the result file");
    app.add_option("--max-mib", max_mib, "largest working set of the latency curve, in MiB")
        ->capture_default_str()
        ->check(in_range(std::size_t{4}, std::size_t{4096}));
    app.add_option("--cpu", cpu, "pin to this CPU (default: the last one allowed)")->check(
        CLI::NonNegativeNumber);
    app.footer("Exit status: 0 on success, 1 on a usage error or when the result cannot be "
               "written.\nDocumented in docs/probe.md.");
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return fail(fmt::format("{}; see cacheprobe --help", e.what()));
    }
    if (quick && app.count("--max-mib") == 0) max_mib = 64;

    const Pinning pin = pin_to_one_cpu(cpu >= 0 ? std::optional<int>(cpu) : std::nullopt);
    if (cpu >= 0 && pin.cpu < 0) return fail(pin.error);
    auto clock = make_default_clock();
    const ProbeResult result = probe_hierarchy(*clock, {quick, max_mib << 20, 1}, pin.cpu);

    std::string saved_to;
    if (!no_save) {
        if (auto error = save_probe_result(result, save_to); !error.empty()) return fail(error);
        saved_to = save_to;
    }
    if (json_opt->count() == 0) {
        print_table(result, saved_to);
    } else {
        try {
            write_file_atomically(json_to.empty() ? "-" : json_to, to_json_text(result));
        } catch (const std::exception& e) {
            return fail(e.what());
        }
    }
    return 0;
}

}  // namespace
}  // namespace perflab

int main(int argc, char** argv) { return perflab::run(argc, argv); }
