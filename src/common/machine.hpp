// What the machine is: CPU model and data-cache geometry, each figure with the place
// it came from, because on VMs the OS often reports nothing and CPUID can report
// nonsense (a 508 MiB "L3" on the course machines).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perflab {

struct CacheLevel {
    int level = 0;               // 1, 2, 3
    std::string type;            // "Data", "Unified"
    std::size_t size_bytes = 0;
    int ways = 0;                // 0 = fully associative or unknown
    int line_bytes = 0;
    std::string source;          // "sysfs", "cpuid 0x80000005", "cpuid 4", ...
    bool plausible = true;       // false when the reported size cannot be real
    // Logical CPUs sharing this one cache (size_bytes is one instance's): 1 for a
    // core's own L2, all of a CCX's for its L3. 0 = unknown.
    int shared_cpus = 0;
};

// ", shared by 2 logical CPUs", ", private to one logical CPU", or "" when unknown (0):
// without it a reader cannot tell a per-core L3 from a shared one.
std::string sharing_text(int shared_cpus);

struct MachineInfo {
    std::string cpu_model;
    int logical_cpus = 0;
    std::vector<CacheLevel> caches;  // data and unified levels, L1 first

    const CacheLevel* level(int n) const;
    const CacheLevel* l1d() const { return level(1); }
    // The last level whose size is plausible: what a cache simulation should model.
    const CacheLevel* last_level() const;
};

// The caches of `cpu`, the one the caller is pinned to (-1: not pinned, cpu0's):
// from sysfs when it has cache entries, CPUID otherwise (which answers for the CPU
// this runs on). On a hybrid part cpu0 may be a P-core while timing runs on an
// E-core with another L1d and L2. sysfs_cpus is for tests.
MachineInfo read_machine_info(int cpu, const std::string& sysfs_cpus = "/sys/devices/system/cpu");

// Parsers, exposed for tests on recorded inputs.
std::optional<std::size_t> parse_sysfs_size(const std::string& text);  // "48K" -> 49152
int count_cpu_list(const std::string& text);                           // "0-1,4" -> 3; 0 if malformed
std::vector<CacheLevel> read_sysfs_caches(const std::string& cpu_dir);

struct CpuidRegs {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};
// One CPUID leaf and subleaf; nullopt beyond the CPU's highest leaf of that range.
using Cpuid = std::function<std::optional<CpuidRegs>(unsigned leaf, unsigned subleaf)>;
// This CPU's.
std::optional<CpuidRegs> this_cpuid(unsigned leaf, unsigned subleaf);
std::vector<CacheLevel> read_cpuid_caches(const Cpuid& cpuid = this_cpuid);

// Largest cache a real part of this generation could have; a larger report is flagged.
inline constexpr std::size_t kPlausibleCacheLimit = std::size_t{256} << 20;

}  // namespace perflab
