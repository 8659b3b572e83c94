#include "machine.hpp"

#include <cpuid.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace perflab {
namespace {

std::string read_line(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::string s;
    std::getline(in, s);
    return s;
}

std::string cpu_model_from_cpuid() {
    unsigned regs[12] = {};
    unsigned max_ext = __get_cpuid_max(0x80000000, nullptr);
    if (max_ext < 0x80000004) return "unknown x86-64";
    for (unsigned i = 0; i < 3; ++i)
        __get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
    char name[49] = {};
    std::memcpy(name, regs, 48);
    std::string s(name);
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
}

bool is_amd(const Cpuid& cpuid) {
    auto vendor = cpuid(0, 0);
    return vendor && vendor->ebx == 0x68747541;  // "Auth" of AuthenticAMD
}

// AMD's leaf 0x8000001D (present with TopologyExtensions) describes each cache as
// Intel's leaf 4 does; the legacy leaves give no L3 ways on Zen, only a pointer to it.
bool has_amd_cache_topology(const Cpuid& cpuid) {
    auto features = cpuid(0x80000001, 0);
    return features && (features->ecx >> 22 & 1) && cpuid(0x8000001D, 0);
}

// Deterministic cache parameters, one subleaf per cache: Intel's leaf 4, AMD's 0x8000001D.
std::vector<CacheLevel> deterministic_caches(const Cpuid& cpuid, unsigned leaf, const std::string& source) {
    std::vector<CacheLevel> out;
    for (unsigned sub = 0; sub < 16; ++sub) {
        auto r = cpuid(leaf, sub);
        if (!r) break;
        unsigned type = r->eax & 0x1f;
        if (type == 0) break;
        if (type == 2) continue;  // instruction cache
        int ways = int((r->ebx >> 22) & 0x3ff) + 1;
        int partitions = int((r->ebx >> 12) & 0x3ff) + 1;
        int line = int(r->ebx & 0xfff) + 1;
        std::size_t sets = std::size_t(r->ecx) + 1;
        // AMD counts the logical CPUs sharing the cache; Intel's leaf 4 gives only an
        // upper bound on their APIC IDs (a power of two), which is no count.
        int sharing = leaf == 0x8000001D ? int((r->eax >> 14) & 0xfff) + 1 : 0;
        out.push_back({int((r->eax >> 5) & 7), type == 1 ? "Data" : "Unified",
                       std::size_t(ways) * partitions * line * sets, ways, line, source, true, sharing});
    }
    return out;
}

// AMD's legacy leaves encode L2/L3 associativity as a code, not a count.
int amd_assoc(unsigned code) {
    static const int table[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
    return table[code & 0xf];
}

// AMD's legacy leaves: L1d from 0x80000005, L2 and L3 from 0x80000006, whose
// associativity code 9 means "see leaf 0x8000001D": without that leaf, unknown (0).
std::vector<CacheLevel> amd_legacy_caches(const Cpuid& cpuid) {
    std::vector<CacheLevel> out;
    auto l1 = cpuid(0x80000005, 0);
    auto l2l3 = cpuid(0x80000006, 0);
    if (!l1 || !l2l3) return out;
    unsigned c = l1->ecx;
    unsigned l1_assoc = (c >> 16) & 0xff;
    out.push_back({1, "Data", std::size_t((c >> 24) & 0xff) << 10, l1_assoc == 0xff ? 0 : int(l1_assoc),
                   int(c & 0xff), "cpuid 0x80000005", true, 0});
    c = l2l3->ecx;
    unsigned d = l2l3->edx;
    if ((c >> 16) != 0)
        out.push_back({2, "Unified", std::size_t(c >> 16) << 10, amd_assoc((c >> 12) & 0xf), int(c & 0xff),
                       "cpuid 0x80000006", true, 0});
    if ((d >> 18) != 0)
        out.push_back({3, "Unified", std::size_t(d >> 18) << 19, amd_assoc((d >> 12) & 0xf), int(d & 0xff),
                       "cpuid 0x80000006", true, 0});
    return out;
}

void mark_plausibility(std::vector<CacheLevel>& caches) {
    for (auto& c : caches) c.plausible = c.size_bytes > 0 && c.size_bytes <= kPlausibleCacheLimit;
}

}  // namespace

const CacheLevel* MachineInfo::level(int n) const {
    for (const auto& c : caches)
        if (c.level == n && c.type != "Instruction") return &c;
    return nullptr;
}

const CacheLevel* MachineInfo::last_level() const {
    const CacheLevel* best = nullptr;
    for (const auto& c : caches)
        if (c.type != "Instruction" && c.plausible && (!best || c.level > best->level)) best = &c;
    return best;
}

std::optional<std::size_t> parse_sysfs_size(const std::string& text) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
    std::size_t pos = 0;
    unsigned long long v = std::stoull(text, &pos);
    std::string unit = text.substr(pos);
    if (unit.empty()) return v;
    switch (unit[0]) {
        case 'K': return v << 10;
        case 'M': return v << 20;
        case 'G': return v << 30;
        default: return std::nullopt;
    }
}

int count_cpu_list(const std::string& text) {
    int count = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find(',', pos);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(pos, end - pos);
        const std::size_t dash = item.find('-');
        try {
            std::size_t used = 0;
            const int first = std::stoi(item, &used);
            int last = first;
            if (dash != std::string::npos) last = std::stoi(item.substr(dash + 1), &used), used += dash + 1;
            if (used != item.size() || first < 0 || last < first) return 0;
            count += last - first + 1;
        } catch (const std::exception&) {
            return 0;
        }
        pos = end + 1;
    }
    return count;
}

std::string sharing_text(int shared_cpus) {
    if (shared_cpus <= 0) return "";
    if (shared_cpus == 1) return ", private to one logical CPU";
    return ", shared by " + std::to_string(shared_cpus) + " logical CPUs";
}

std::vector<CacheLevel> read_sysfs_caches(const std::string& cpu_dir) {
    namespace fs = std::filesystem;
    std::vector<CacheLevel> out;
    std::error_code ec;
    fs::path dir = fs::path(cpu_dir) / "cache";
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().filename().string().rfind("index", 0) != 0) continue;
        CacheLevel c;
        c.type = read_line(entry.path() / "type");
        if (c.type == "Instruction") continue;
        try {
            c.level = std::stoi(read_line(entry.path() / "level"));
            c.size_bytes = parse_sysfs_size(read_line(entry.path() / "size")).value_or(0);
            std::string ways = read_line(entry.path() / "ways_of_associativity");
            c.ways = ways.empty() ? 0 : std::stoi(ways);
            std::string line = read_line(entry.path() / "coherency_line_size");
            c.line_bytes = line.empty() ? 0 : std::stoi(line);
            c.shared_cpus = count_cpu_list(read_line(entry.path() / "shared_cpu_list"));
        } catch (const std::exception&) {
            continue;  // a half-populated entry is as good as none
        }
        c.source = "sysfs";
        out.push_back(c);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.level < b.level; });
    mark_plausibility(out);
    return out;
}

std::optional<CpuidRegs> this_cpuid(unsigned leaf, unsigned subleaf) {
    // Leaves past the highest of their range return another leaf's data on Intel.
    if (leaf > __get_cpuid_max(leaf & 0x80000000, nullptr)) return std::nullopt;
    CpuidRegs r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

std::vector<CacheLevel> read_cpuid_caches(const Cpuid& cpuid) {
    std::vector<CacheLevel> out;
    if (is_amd(cpuid))
        out = has_amd_cache_topology(cpuid) ? deterministic_caches(cpuid, 0x8000001D, "cpuid 0x8000001D")
                                            : amd_legacy_caches(cpuid);
    else
        out = deterministic_caches(cpuid, 4, "cpuid 4");
    mark_plausibility(out);
    return out;
}

MachineInfo read_machine_info(int cpu, const std::string& sysfs_cpus) {
    MachineInfo m;
    m.cpu_model = cpu_model_from_cpuid();
    m.logical_cpus = int(std::thread::hardware_concurrency());
    m.caches = read_sysfs_caches(sysfs_cpus + "/cpu" + std::to_string(cpu < 0 ? 0 : cpu));
    if (m.caches.empty()) m.caches = read_cpuid_caches();
    return m;
}

}  // namespace perflab
