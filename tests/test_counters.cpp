// The counters through libpfm4 and perf_events. Software events work everywhere,
// so they exercise the real path end to end; hardware events exercise the
// "unavailable" explanations on machines (like the course VMs) without a PMU.
#include "common/perf_counters.hpp"
#include "pfm_events.hpp"

#include <catch2/catch.hpp>
#include <perfmon/pfmlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>

using namespace perflab;
using perflab::test::machine_has_pmu;

namespace {

struct FreshPages {
    explicit FreshPages(std::size_t n) : bytes(n * std::size_t(sysconf(_SC_PAGESIZE))) {
        base = static_cast<volatile char*>(
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        REQUIRE(base != MAP_FAILED);
        // A transparent huge page would satisfy 512 touches with one fault.
        madvise(const_cast<char*>(base), bytes, MADV_NOHUGEPAGE);
    }
    ~FreshPages() { munmap(const_cast<char*>(base), bytes); }
    std::size_t bytes;
    volatile char* base;
};

__attribute__((noinline)) void touch_pages(volatile char* p, std::size_t bytes) {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    for (std::size_t off = 0; off < bytes; off += page) p[off] = 1;
}

PerfCounterGroup open_or_fail(const std::vector<std::string>& events) {
    auto opened = PerfCounterGroup::open(events);
    if (auto* why = std::get_if<Unavailable>(&opened)) FAIL("could not open software counters: " << why->line());
    return std::move(std::get<PerfCounterGroup>(opened));
}

CounterReading read_or_fail(const PerfCounterGroup& g) {
    auto r = g.read();
    if (auto* why = std::get_if<Unavailable>(&r)) FAIL("could not read counters: " << why->line());
    return std::get<CounterReading>(r);
}

}  // namespace

TEST_CASE("touching N fresh pages counts exactly N user-mode page faults", "[counters]") {
    constexpr std::size_t n = 64;
    {  // fault in touch_pages' own code page outside the measurement
        FreshPages warm(1);
        touch_pages(warm.base, warm.bytes);
    }
    // The group is opened with exclude_kernel, and still sees the faults: a page
    // fault is charged to the mode of the faulting instruction, here user mode.
    auto group = open_or_fail({"perf::PERF_COUNT_SW_TASK_CLOCK", "perf::PAGE-FAULTS"});
    REQUIRE(group.events() == std::vector<std::string>{"perf::PERF_COUNT_SW_TASK_CLOCK", "perf::PAGE-FAULTS"});

    FreshPages pages(n);
    group.start();
    touch_pages(pages.base, pages.bytes);
    group.stop();
    auto r = read_or_fail(group);
    REQUIRE(r.values.size() == 2);
    CHECK(r.values[1] == n);
    CHECK(r.values[0] > 0);  // task clock: the group counted, in event order
    CHECK_FALSE(r.multiplexed());

    SECTION("stop() freezes the counts") {
        FreshPages more(8);
        touch_pages(more.base, more.bytes);
        CHECK(read_or_fail(group).values[1] == n);
    }
    SECTION("start() begins again from zero") {
        FreshPages more(n / 2);
        group.start();
        touch_pages(more.base, more.bytes);
        group.stop();
        CHECK(read_or_fail(group).values[1] == n / 2);
    }
    SECTION("pages already touched do not fault again") {
        group.start();
        touch_pages(pages.base, pages.bytes);
        group.stop();
        CHECK(read_or_fail(group).values[1] == 0);
    }
}

TEST_CASE("hardware events without a PMU are explained, not zeros", "[counters]") {
    for (const auto& events : {std::vector<std::string>{"perf::CYCLES"},
                               // a failing member must fail the whole group
                               std::vector<std::string>{"perf::PAGE-FAULTS", "perf::INSTRUCTIONS"}}) {
        auto opened = PerfCounterGroup::open(events);
        if (machine_has_pmu()) {
            WARN("this machine has a PMU; checking that hardware events open instead");
            auto* why = std::get_if<Unavailable>(&opened);
            CHECK((why == nullptr || why->cause.find("perf_event_paranoid") != std::string::npos));
            continue;
        }
        auto* why = std::get_if<Unavailable>(&opened);
        REQUIRE(why != nullptr);
        CHECK(why->cause.find("no hardware PMU") != std::string::npos);
        CHECK(why->remedy.find("--simulate") != std::string::npos);
        CHECK(why->line().find('\n') == std::string::npos);
    }
}

TEST_CASE("unknown event names are reported by name", "[counters]") {
    for (std::string name : {"foo", "perf::NO-SUCH-EVENT"}) {
        auto opened = PerfCounterGroup::open({"perf::PAGE-FAULTS", name});
        auto* why = std::get_if<Unavailable>(&opened);
        REQUIRE(why != nullptr);
        CHECK(why->cause.find("unknown event '" + name + "'") != std::string::npos);
        CHECK_FALSE(event_supported(name));
    }
    auto none = PerfCounterGroup::open({});
    CHECK(std::holds_alternative<Unavailable>(none));
}

TEST_CASE("an event of a PMU model this CPU lacks is named as such, not as unknown", "[counters]") {
    const auto event = perflab::test::event_of_an_undetected_pmu();
    REQUIRE(event);
    auto opened = PerfCounterGroup::open({*event});
    auto* why = std::get_if<Unavailable>(&opened);
    REQUIRE(why != nullptr);
    CHECK(why->cause.find("unknown event") == std::string::npos);
    CHECK(why->cause.find("'" + *event + "' is an event of the ") != std::string::npos);
    CHECK(why->line().find('\n') == std::string::npos);
    if (machine_has_pmu()) {
        // Another CPU's event on a real PMU is the user's mistake, refused up front.
        CHECK(why->bad_name);
        CHECK(bad_event_name(*event));
        return;
    }
    // Without a PMU no name could be counted: the machine's limit, with its remedy.
    CHECK_FALSE(why->bad_name);
    CHECK_FALSE(bad_event_name(*event));
    CHECK(why->cause.find("no hardware PMU") != std::string::npos);
    CHECK(why->remedy.find("--simulate") != std::string::npos);
}

TEST_CASE("default events: generic names first, the PMU's own names where those fail", "[counters]") {
    auto names = [](const std::vector<CounterEvent>& events) {
        std::vector<std::string> out;
        for (const auto& e : events) out.push_back(e.metric + "=" + e.event);
        return out;
    };
    const std::vector<std::string> generic{"cycles=perf::CYCLES", "instructions=perf::INSTRUCTIONS",
                                           "L1D load misses=perf::L1-DCACHE-LOAD-MISSES",
                                           "LLC load misses=perf::LLC-LOAD-MISSES"};

    SECTION("an Intel-like PMU with every generic event") {
        CHECK(names(default_counter_events([](const std::string&) { return true; })) == generic);
    }
    SECTION("AMD Zen 4: the kernel has no generic LLC events") {
        auto zen4 = [](const std::string& e) {
            return e.rfind("amd64_fam19h_zen4::", 0) == 0 || (e.rfind("perf::", 0) == 0 && e != "perf::LLC-LOAD-MISSES");
        };
        auto chosen = default_counter_events(zen4);
        REQUIRE(chosen.size() == 4);
        CHECK(chosen[0].event == "perf::CYCLES");
        CHECK(chosen[2].event == "perf::L1-DCACHE-LOAD-MISSES");
        CHECK(chosen[3].metric == "LLC load misses");
        CHECK(chosen[3].event.rfind("amd64_fam19h_zen4::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:", 0) == 0);
    }
    SECTION("AMD Zen 5 with only its own names") {
        auto zen5 = [](const std::string& e) { return e.rfind("amd64_fam1ah_zen5::", 0) == 0; };
        for (const auto& e : default_counter_events(zen5)) CHECK(e.event.rfind("amd64_fam1ah_zen5::", 0) == 0);
        CHECK(default_counter_events(zen5).size() == 4);
    }
    SECTION("metrics nothing can count are left out") {
        auto core_only = [](const std::string& e) { return e == "perf::CYCLES" || e == "perf::INSTRUCTIONS"; };
        CHECK(names(default_counter_events(core_only)) ==
              std::vector<std::string>{"cycles=perf::CYCLES", "instructions=perf::INSTRUCTIONS"});
    }
    SECTION("with nothing supported, the generic names remain so opening says why") {
        CHECK(names(default_counter_events([](const std::string&) { return false; })) == generic);
    }
}

// The fallback names must exist in libpfm4's tables, or on a real Zen they would
// silently never be chosen. The PMUs are not active here, so look them up through
// the full event list rather than pfm_find_event. PMUs this libpfm4 does not know
// yet (Zen 5 before 4.14) are skipped.
TEST_CASE("the AMD fallback names exist in libpfm4's event tables", "[counters]") {
    REQUIRE(pfm_initialize() == PFM_SUCCESS);
    auto split = [](const std::string& s, char sep) {
        std::vector<std::string> parts;
        std::stringstream ss(s);
        for (std::string p; std::getline(ss, p, sep);) parts.push_back(p);
        return parts;
    };
    int checked = 0;
    for (const auto& metric : counter_event_candidates()) {
        for (const auto& name : metric.events) {
            auto sep = name.find("::");
            std::string pmu_name = name.substr(0, sep);
            if (pmu_name == "perf") continue;
            INFO(name);
            auto parts = split(name.substr(sep + 2), ':');
            pfm_pmu_info_t pinfo{};
            pinfo.size = sizeof pinfo;
            int first = -1;
            for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p)
                if (pfm_get_pmu_info(pfm_pmu_t(p), &pinfo) == PFM_SUCCESS && pmu_name == pinfo.name)
                    first = pinfo.first_event;
            if (first < 0) continue;
            bool found = false;
            for (int i = first; i != -1 && !found; i = pfm_get_event_next(i)) {
                pfm_event_info_t einfo{};
                einfo.size = sizeof einfo;
                if (pfm_get_event_info(i, PFM_OS_NONE, &einfo) != PFM_SUCCESS || parts[0] != einfo.name) continue;
                std::set<std::string> umasks;
                for (int a = 0; a < einfo.nattrs; ++a) {
                    pfm_event_attr_info_t ainfo{};
                    ainfo.size = sizeof ainfo;
                    if (pfm_get_event_attr_info(i, a, PFM_OS_NONE, &ainfo) == PFM_SUCCESS) umasks.insert(ainfo.name);
                }
                for (std::size_t u = 1; u < parts.size(); ++u) CHECK(umasks.count(parts[u]) == 1);
                found = true;
            }
            CHECK(found);
            ++checked;
        }
    }
    CHECK(checked >= 8);  // at least the Zen 4 and Zen 3 names of all four metrics
}
