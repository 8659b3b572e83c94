// Reading what a grader batch wrote, as the grader and Slurm tests both check it.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "harness.hpp"

namespace perflab::test {

// Small images and a short per-call limit keep a whole class under a minute.
inline const std::string kQuickDriver = "--dims 64,128 --max-samples 5 --timeout 2";

// results.jsonl as id -> record; `lines` counts them. A duplicated record fails.
inline std::map<std::string, nlohmann::json> records_by_id(const std::string& results_jsonl, int* lines = nullptr) {
    std::map<std::string, nlohmann::json> out;
    std::istringstream in(read_file(results_jsonl));
    int n = 0;
    for (std::string line; std::getline(in, line); ++n) {
        nlohmann::json j = nlohmann::json::parse(line);
        INFO(line);
        REQUIRE(out.count(j["id"]) == 0);  // never a duplicated record
        out[j["id"].get<std::string>()] = j;
    }
    if (lines) *lines = n;
    return out;
}

// CSV rows of gradebook.csv as id -> status (ids and statuses never need quoting).
inline std::map<std::string, std::string> gradebook_statuses(const std::string& csv) {
    std::map<std::string, std::string> out;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        auto a = line.find(','), b = line.find(',', a + 1);
        REQUIRE(out.count(line.substr(0, a)) == 0);
        out[line.substr(0, a)] = line.substr(a + 1, b - a - 1);
    }
    return out;
}

// The JSON a page embeds in its <script type="application/json" id=ID> block.
inline nlohmann::json embedded(const std::string& html, const std::string& id) {
    const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
    auto a = html.find(open);
    REQUIRE(a != std::string::npos);
    a += open.size();
    auto b = html.find("</script>", a);
    REQUIRE(html.find(open, b) == std::string::npos);  // exactly one such block
    return nlohmann::json::parse(html.substr(a, b - a));
}

}  // namespace perflab::test
