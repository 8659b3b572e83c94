#include "probe_result.hpp"

#include "common/atomic_file.hpp"
#include "common/executable_dir.hpp"
#include "common/read_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace perflab {

namespace {

// Bumped whenever a field changes meaning, so an old cache file is re-measured, not misread.
constexpr const char* kFormat = "perflab-cacheprobe/1";

using nlohmann::json;

json points_json(const std::vector<LatencyPoint>& points) {
    json out = json::array();
    for (const auto& p : points) out.push_back({p.x, p.ns, p.spread});
    return out;
}

std::vector<LatencyPoint> points_from(const json& j) {
    std::vector<LatencyPoint> out;
    for (const auto& p : j) out.push_back({p.at(0).get<std::size_t>(), p.at(1), p.at(2)});
    return out;
}

}  // namespace

const ProbeLevel* ProbeResult::level(int n) const {
    for (const auto& l : levels)
        if (l.level == n) return &l;
    return nullptr;
}

std::string to_json_text(const ProbeResult& r) {
    json levels = json::array();
    for (const auto& l : r.levels)
        levels.push_back({{"level", l.level},
                          {"size_bytes", l.size_bytes},
                          {"latency_ns", l.latency_ns},
                          {"latency_cycles", l.latency_cycles},
                          {"certain", l.certain},
                          {"why", l.why},
                          {"reported_bytes", l.reported_bytes},
                          {"reported_source", l.reported_source},
                          {"reported_plausible", l.reported_plausible},
                          {"reported_shared_cpus", l.reported_shared_cpus}});
    json memory = nullptr;
    if (r.memory_latency_ns)
        memory = {{"latency_ns", *r.memory_latency_ns},
                  {"latency_cycles", r.memory_latency_cycles},
                  {"certain", r.memory_certain}};
    const json j = {
        {"format", kFormat},
        {"line", {{"bytes", r.line_bytes}, {"certain", r.line_certain}, {"why", r.line_why},
                  {"reported_bytes", r.reported_line_bytes}}},
        {"levels", levels},
        {"memory", memory},
        {"l1d_ways", {{"ways", r.l1d_ways}, {"certain", r.l1d_ways_certain}, {"why", r.l1d_ways_why},
                      {"reported", r.reported_l1d_ways}}},
        {"core_ghz", r.core_ghz},
        {"clock", r.clock},
        {"huge_pages", r.huge_pages},
        {"cpu_model", r.cpu_model},
        {"cpu", r.cpu},
        {"seconds", r.seconds},
        {"curves", {{"latency", points_json(r.latency_curve)},
                    {"split_loads", points_json(r.split_loads)},
                    {"same_set", points_json(r.same_set)}}},
    };
    return j.dump(2) + "\n";
}

std::optional<ProbeResult> parse_probe_result(const std::string& text) {
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", "") != kFormat) return std::nullopt;
    try {
        ProbeResult r;
        const json& line = j.at("line");
        r.line_bytes = line.at("bytes");
        r.line_certain = line.at("certain");
        r.line_why = line.at("why");
        r.reported_line_bytes = line.at("reported_bytes");
        for (const json& l : j.at("levels"))
            r.levels.push_back({l.at("level"), l.at("size_bytes"), l.at("latency_ns"),
                                l.at("latency_cycles"), l.at("certain"), l.at("why"),
                                l.at("reported_bytes"), l.at("reported_source"),
                                l.at("reported_plausible"),
                                l.value("reported_shared_cpus", 0)});  // a saved result from before it was kept
        if (const json& m = j.at("memory"); !m.is_null()) {
            r.memory_latency_ns = m.at("latency_ns").get<double>();
            r.memory_latency_cycles = m.at("latency_cycles");
            r.memory_certain = m.at("certain");
        }
        const json& ways = j.at("l1d_ways");
        r.l1d_ways = ways.at("ways");
        r.l1d_ways_certain = ways.at("certain");
        r.l1d_ways_why = ways.value("why", "");  // a saved result from before it was kept
        r.reported_l1d_ways = ways.at("reported");
        r.core_ghz = j.at("core_ghz");
        r.clock = j.at("clock");
        r.huge_pages = j.at("huge_pages");
        r.cpu_model = j.at("cpu_model");
        r.cpu = j.at("cpu");
        r.seconds = j.at("seconds");
        const json& curves = j.at("curves");
        r.latency_curve = points_from(curves.at("latency"));
        r.split_loads = points_from(curves.at("split_loads"));
        r.same_set = points_from(curves.at("same_set"));
        return r;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

std::string default_probe_result_path() { return executable_dir() + "/build/cacheprobe.json"; }

std::optional<ProbeResult> load_probe_result(const std::string& path) {
    const auto text = read_file(path);
    if (!text) return std::nullopt;
    return parse_probe_result(*text);
}

std::string save_probe_result(const ProbeResult& result, const std::string& path) {
    try {
        write_file_making_directory(path, to_json_text(result));
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace perflab
