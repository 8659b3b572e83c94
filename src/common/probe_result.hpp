// What cacheprobe measured, as the driver's tile advice and the cache simulation read
// it back: line size and per-level size and latency, each with a certain flag, beside
// what the OS or CPUID reported. Saved as JSON (build/cacheprobe.json beside the
// program by default).
#pragma once


#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perflab {

// One point of a latency curve: a working-set size (or other x) and the time of a
// dependent load there.
struct LatencyPoint {
    std::size_t x = 0;
    double ns = 0;       // per dependent load
    double spread = 0;   // K-best disagreement: how much the fastest samples differed
};

struct ProbeLevel {
    int level = 0;                   // 1 = L1d, 2, 3
    std::size_t size_bytes = 0;      // measured capacity; 0 when the curve did not show it
    double latency_ns = 0;
    double latency_cycles = 0;       // core cycles (see ProbeResult::core_ghz)
    bool certain = false;
    std::string why;                 // why it is uncertain; empty when certain
    std::size_t reported_bytes = 0;  // what the OS/CPUID says; 0 when it says nothing
    std::string reported_source;     // "sysfs", "cpuid 0x80000006", ...; "" when nothing
    bool reported_plausible = true;
    int reported_shared_cpus = 0;    // logical CPUs sharing the reported cache; 0 when unknown
};

struct ProbeResult {
    int line_bytes = 0;              // measured; 0 when the probe found no step
    bool line_certain = false;
    std::string line_why;
    int reported_line_bytes = 0;

    std::vector<ProbeLevel> levels;  // data caches, L1d first
    std::optional<double> memory_latency_ns;
    double memory_latency_cycles = 0;
    bool memory_certain = false;

    int l1d_ways = 0;                // 0 when not measured or no step was found
    bool l1d_ways_certain = false;
    std::string l1d_ways_why;        // why they are uncertain; empty when certain
    int reported_l1d_ways = 0;

    double core_ghz = 0;             // measured with dependent adds; cycles use it
    std::string clock;               // Clock::describe() of the clock that timed it all
    std::string huge_pages;          // whether the chase buffer got huge pages
    std::string cpu_model;
    int cpu = -1;                    // the CPU it ran pinned to; -1 = not pinned
    double seconds = 0;              // how long the probe took

    // The raw curves, for plots and second opinions.
    std::vector<LatencyPoint> latency_curve;  // x = working-set bytes
    std::vector<LatencyPoint> split_loads;    // x = straddled boundary
    std::vector<LatencyPoint> same_set;       // x = lines in one L1d set

    const ProbeLevel* level(int n) const;
};

std::string to_json_text(const ProbeResult& result);
// nullopt when the text is not a cacheprobe result (of this format version).
std::optional<ProbeResult> parse_probe_result(const std::string& json_text);
// build/cacheprobe.json in the running program's directory: ./cacheprobe and ./driver
// are built side by side, so each finds the other's file whatever directory it is run
// from, and never a stale one that happens to lie under the working directory.
std::string default_probe_result_path();
// nullopt when the file is missing, unreadable or not a cacheprobe result.
std::optional<ProbeResult> load_probe_result(const std::string& path);
// Writes atomically (temporary file, then rename); returns "" or the error.
std::string save_probe_result(const ProbeResult& result, const std::string& path);

}  // namespace perflab
