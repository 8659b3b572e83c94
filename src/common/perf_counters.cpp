#include "perf_counters.hpp"

#ifdef PERFLAB_NO_LIBPFM
#include <linux/perf_event.h>
#else
#include <perfmon/pfmlib_perf_event.h>
#endif

#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <string_view>

namespace perflab {
namespace {

constexpr std::string_view kZenPmus[] = {"amd64_fam1ah_zen5", "amd64_fam19h_zen4", "amd64_fam19h_zen3"};

std::vector<std::string> with_fallbacks(std::string generic, std::string_view zen_event) {
    std::vector<std::string> names{std::move(generic)};
    for (auto pmu : kZenPmus) names.push_back(fmt::format("{}::{}", pmu, zen_event));
    return names;
}

const std::string kNoPmuRemedy = "use --simulate";

// -------- perf_event_open and what its errors mean --------

int perf_event_open(perf_event_attr& attr, int group_fd, pid_t pid = 0 /* this thread */) {
    return int(syscall(SYS_perf_event_open, &attr, pid, -1 /* any CPU */, group_fd,
                       PERF_FLAG_FD_CLOEXEC));
}

bool is_refusal(int err) { return err == EACCES || err == EPERM; }
bool is_unsupported(int err) { return err == ENOENT || err == ENODEV || err == EOPNOTSUPP || err == EINVAL; }

// A VM without PMU passthrough has no "cpu" event source at all, so even the
// architectural cycles event fails; a real PMU lacking one event does not.
bool hardware_pmu_present() {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = perf_event_open(attr, -1);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return !is_unsupported(errno);
}

// -------- event encoding: the only part that needs libpfm4 --------

#ifdef PERFLAB_NO_LIBPFM

std::variant<perf_event_attr, Unavailable> encode(const std::string&) {
    return Unavailable{"counters are not built in (libpfm4-dev was missing at build time)",
                       "install libpfm4-dev and rebuild"};
}

#else

const std::string kListEventsRemedy =
    "list this CPU's events with libpfm4's showevtinfo, or use a perf:: name such as perf::CYCLES";

// The description of the PMU model whose tables hold `event` ("pmu::EVENT:..."), when
// libpfm4 has that model but did not detect it here: it encodes only for detected
// PMUs, so to pfm_get_os_event_encoding such a name is as unknown as a misspelt one.
std::optional<std::string> undetected_pmu_of(const std::string& event) {
    const auto sep = event.find("::");
    if (sep == std::string::npos) return std::nullopt;
    const std::string pmu_name = event.substr(0, sep);
    const std::string event_name = event.substr(sep + 2, event.find(':', sep + 2) - (sep + 2));
    // pfm_for_all_pmus() increments an enum, which C++ does not allow.
    for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
        pfm_pmu_info_t pmu_info{};
        pmu_info.size = sizeof pmu_info;
        if (pfm_get_pmu_info(pfm_pmu_t(pmu), &pmu_info) != PFM_SUCCESS || pmu_info.is_present ||
            strcasecmp(pmu_info.name, pmu_name.c_str()) != 0)
            continue;
        for (int i = pmu_info.first_event; i != -1; i = pfm_get_event_next(i)) {
            pfm_event_info_t info{};
            info.size = sizeof info;
            if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &info) == PFM_SUCCESS &&
                strcasecmp(info.name, event_name.c_str()) == 0)
                return std::string(pmu_info.desc);
        }
    }
    return std::nullopt;
}

// With no hardware PMU at all, an event of a model that is not here is the machine's
// limit, not the user's mistake: the run goes on and says so, as for perf:: names.
Unavailable undetected_pmu_event(const std::string& event, const std::string& pmu) {
    if (!hardware_pmu_present())
        return {fmt::format("'{}' is an event of the {} PMU, but this machine has no hardware PMU (e.g. a VM without "
                            "PMU passthrough)",
                            event, pmu),
                kNoPmuRemedy};
    return {fmt::format("'{}' is an event of the {} PMU, which libpfm4 does not detect on this CPU", event, pmu),
            kListEventsRemedy, true};
}

std::variant<perf_event_attr, Unavailable> encode(const std::string& event) {
    static const int init = pfm_initialize();
    if (init != PFM_SUCCESS)
        return Unavailable{fmt::format("libpfm4 failed to initialise ({})", pfm_strerror(init)),
                           "check the libpfm4 installation and unset any LIBPFM_* environment variables"};
    perf_event_attr attr{};
    pfm_perf_encode_arg_t arg{};
    arg.size = sizeof arg;
    arg.attr = &attr;
    int rc = pfm_get_os_event_encoding(event.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc == PFM_ERR_NOTFOUND) {
        if (auto pmu = undetected_pmu_of(event)) return undetected_pmu_event(event, *pmu);
        return Unavailable{fmt::format("unknown event '{}' (libpfm4 knows no such event on this CPU)", event),
                           kListEventsRemedy, true};
    }
    if (rc != PFM_SUCCESS)
        return Unavailable{fmt::format("event '{}' cannot be encoded ({})", event, pfm_strerror(rc)),
                           "check its unit masks and modifiers with libpfm4's showevtinfo", true};
    return attr;
}

#endif

int read_paranoid_level() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int level = -100;
    in >> level;
    return level;
}

Unavailable explain_open_failure(const std::string& event, int err) {
    if (is_refusal(err)) {
        int level = read_paranoid_level();
        if (level > 2)
            return {fmt::format("perf_event_paranoid is {}: the kernel forbids unprivileged counting", level),
                    "sudo sysctl kernel.perf_event_paranoid=2 (user-mode counting is all perflab needs)"};
        return {fmt::format("the kernel refused to count '{}' ({}) although perf_event_paranoid is {}", event,
                            std::strerror(err), level),
                "a container or seccomp policy may block perf_event_open: grant CAP_PERFMON, or use --simulate"};
    }
    if (is_unsupported(err)) {
        if (!hardware_pmu_present())
            return {"no hardware PMU (e.g. a VM without PMU passthrough)", kNoPmuRemedy};
        return {fmt::format("event '{}' is not supported by this CPU's PMU", event),
                "choose another event (docs/counters.md lists the per-CPU fallbacks) or " + kNoPmuRemedy};
    }
    if (err == EMFILE)
        return {"too many open files to open the counters", "raise the limit (ulimit -n)"};
    return {fmt::format("perf_event_open for '{}' failed ({})", event, std::strerror(err)), kNoPmuRemedy};
}

void close_fds(std::vector<int>& fds) {
    for (int fd : fds) close(fd);
    fds.clear();
}

}  // namespace

// -------- default events --------

const std::vector<MetricCandidates>& counter_event_candidates() {
    // On AMD Zen the kernel has no generic LLC events (its table leaves them 0, so
    // perf_event_open says ENOENT); the fallback counts demand fills of the L1D that
    // came from beyond this core's CCX, i.e. L3 misses. The L1D fallback is the very
    // encoding (0xc860) the kernel uses for L1-DCACHE-LOAD-MISSES on Zen, so both
    // names give the same figure. Zen 5 and Zen 4 name their unit masks alike.
    static const std::vector<MetricCandidates> table{
        {"cycles", with_fallbacks("perf::CYCLES", "CYCLES_NOT_IN_HALT")},
        {"instructions", with_fallbacks("perf::INSTRUCTIONS", "RETIRED_INSTRUCTIONS")},
        {"L1D load misses",
         with_fallbacks("perf::L1-DCACHE-LOAD-MISSES", "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:CHANGE_TO_X")},
        {"LLC load misses",
         {"perf::LLC-LOAD-MISSES",
          "amd64_fam1ah_zen5::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:"
          "FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR",
          "amd64_fam19h_zen4::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:"
          "FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR",
          "amd64_fam19h_zen3::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:"
          "MEM_IO_RMT"}},
    };
    return table;
}

std::vector<CounterEvent> default_counter_events(const EventSupported& supported) {
    std::vector<CounterEvent> chosen;
    for (const auto& m : counter_event_candidates()) {
        auto it = std::find_if(m.events.begin(), m.events.end(), supported);
        if (it != m.events.end()) chosen.push_back({m.metric, *it});
    }
    if (chosen.empty())
        for (const auto& m : counter_event_candidates()) chosen.push_back({m.metric, m.events.front()});
    return chosen;
}

std::vector<CounterEvent> default_counter_events() {
    return default_counter_events([](const std::string& e) { return event_supported(e); });
}

std::optional<Unavailable> bad_event_name(const std::string& event) {
    auto encoded = encode(event);
    auto* why = std::get_if<Unavailable>(&encoded);
    if (why && why->bad_name) return *why;
    return std::nullopt;
}

bool event_supported(const std::string& event) {
    auto encoded = encode(event);
    auto* attr = std::get_if<perf_event_attr>(&encoded);
    if (!attr) return false;
    attr->disabled = 1;
    int fd = perf_event_open(*attr, -1);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return is_refusal(errno);
}

// -------- the group --------

std::vector<double> CounterReading::scaled() const {
    double factor = time_running_ns ? double(time_enabled_ns) / double(time_running_ns) : 0.0;
    std::vector<double> out;
    for (auto v : values) out.push_back(double(v) * factor);
    return out;
}

std::variant<PerfCounterGroup, Unavailable> PerfCounterGroup::open(const std::vector<std::string>& events, pid_t pid) {
    if (events.empty()) return Unavailable{"no events to count", "name at least one event"};
    std::vector<int> fds;
    for (const auto& event : events) {
        auto encoded = encode(event);
        if (auto* why = std::get_if<Unavailable>(&encoded)) {
            close_fds(fds);
            return *why;
        }
        auto& attr = std::get<perf_event_attr>(encoded);
        attr.size = sizeof attr;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        // Only the leader is disabled: members follow it in and out of the PMU.
        attr.disabled = fds.empty() ? 1 : 0;
        attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        int fd = perf_event_open(attr, fds.empty() ? -1 : fds.front(), pid);
        if (fd < 0) {
            int err = errno;
            close_fds(fds);
            return explain_open_failure(event, err);
        }
        fds.push_back(fd);
    }
    return PerfCounterGroup(events, std::move(fds));
}

PerfCounterGroup::PerfCounterGroup(std::vector<std::string> events, std::vector<int> fds)
    : events_(std::move(events)), fds_(std::move(fds)), raw_(3 + events_.size()) {}

PerfCounterGroup::PerfCounterGroup(PerfCounterGroup&& other) noexcept
    : events_(std::move(other.events_)),
      fds_(std::move(other.fds_)),
      raw_(std::move(other.raw_)),
      enabled_at_start_(other.enabled_at_start_),
      running_at_start_(other.running_at_start_) {
    other.fds_.clear();
}

PerfCounterGroup& PerfCounterGroup::operator=(PerfCounterGroup&& other) noexcept {
    if (this != &other) {
        close_all();
        events_ = std::move(other.events_);
        fds_ = std::move(other.fds_);
        raw_ = std::move(other.raw_);
        enabled_at_start_ = other.enabled_at_start_;
        running_at_start_ = other.running_at_start_;
        other.fds_.clear();
    }
    return *this;
}

PerfCounterGroup::~PerfCounterGroup() { close_all(); }

void PerfCounterGroup::close_all() { close_fds(fds_); }

// Only the leader is switched: a group runs only while its leader does, and the
// members stay enabled throughout. (Switching the members too, with
// PERF_IOC_FLAG_GROUP, left software members off after the first stop() on
// Linux 6.18.)
// RESET clears the counts but not the enabled/running times, so those are
// remembered here and read() reports only this start()..stop() interval.
void PerfCounterGroup::start() {
    ioctl(fds_.front(), PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    if (::read(fds_.front(), raw_.data(), raw_.size() * sizeof raw_[0]) > 0) {
        enabled_at_start_ = raw_[1];
        running_at_start_ = raw_[2];
    }
    ioctl(fds_.front(), PERF_EVENT_IOC_ENABLE, 0);
}

void PerfCounterGroup::stop() { ioctl(fds_.front(), PERF_EVENT_IOC_DISABLE, 0); }

// PERF_FORMAT_GROUP record: nr, time_enabled, time_running, then nr values.
std::variant<CounterReading, Unavailable> PerfCounterGroup::read() const {
    ssize_t want = ssize_t(raw_.size() * sizeof raw_[0]);
    if (::read(fds_.front(), raw_.data(), std::size_t(want)) != want || raw_[0] != events_.size())
        return Unavailable{fmt::format("reading the counters failed ({})", std::strerror(errno)), kNoPmuRemedy};
    CounterReading r;
    r.time_enabled_ns = raw_[1] - enabled_at_start_;
    r.time_running_ns = raw_[2] - running_at_start_;
    if (r.time_running_ns == 0)
        return Unavailable{fmt::format("the counters never ran: {} events do not fit on the PMU together, or "
                                       "another user (e.g. the NMI watchdog) holds its counters",
                                       events_.size()),
                           "count fewer events at once, or free counters with sysctl kernel.nmi_watchdog=0"};
    r.values.assign(raw_.begin() + 3, raw_.end());
    return r;
}

}  // namespace perflab
