// Figures that agree with each other: in every table a reader can divide, the
// printed ratio of the printed CPEs is the printed speedup, within the rounding of
// the three figures, or the row says why not ("-"). Checked on reports of the
// driver built from every fixture kernels file, and on their JSON.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver/report/report.hpp"
#include "text_report.hpp"
#include "harness.hpp"

using namespace perflab::test;
using nlohmann::json;

namespace {

// The fields after a row's label, "-" kept, a "*" mark dropped.
std::vector<std::string> fields(const std::string& row) {
    std::vector<std::string> out;
    std::istringstream in(row.substr(row.find('\t')));
    std::string f;
    while (std::getline(in, f, '\t')) {
        if (f.empty()) continue;
        if (f.back() == '*') f.pop_back();
        out.push_back(f);
    }
    return out;
}

// Whether b / c, each printed to one decimal, can be s printed to one decimal.
bool divides_within_rounding(double b, double c, double s) {
    const double half = 0.05 + 1e-9;
    if (c - half <= 0) return true;  // a CPE printed as 0.0 bounds nothing
    const double low = std::max(b - half, 0.0) / (c + half), high = (b + half) / (c - half);
    return high >= s - half && low <= s + half;
}

// Every problem in the text report's tables: one line each, naming the table and dim.
std::vector<std::string> inconsistencies(const std::string& report) {
    std::vector<std::string> problems;
    std::istringstream in(report);
    std::string line, title;
    std::vector<std::string> table;
    const bool paired_legend = report.find("Speedup = Baseline paired / Your paired") != std::string::npos;
    auto check_table = [&] {
        std::map<std::string, std::vector<std::string>> rows;
        for (const auto& r : table)
            for (const char* label : {"Dim\t", "Your CPEs\t", "Baseline CPEs\t", "Your paired\t", "Baseline paired\t",
                                      "Speedup\t"})
                if (r.rfind(label, 0) == 0) rows[label] = fields(r);
        if (!rows.count("Speedup\t")) return;
        const bool paired = rows.count("Your paired\t") > 0;
        if (!paired && paired_legend && rows["Baseline CPEs\t"].size() &&
            rows["Baseline CPEs\t"][0] != "0.0" && report.find("Speedup = Baseline CPEs / Your CPEs") == std::string::npos)
            problems.push_back(title + ": no legend says which rows the speedup divides");
        const auto& yours = rows[paired ? "Your paired\t" : "Your CPEs\t"];
        const auto& base = rows[paired ? "Baseline paired\t" : "Baseline CPEs\t"];
        const auto& speed = rows["Speedup\t"];
        auto dims = rows["Dim\t"];
        std::erase(dims, "Mean");  // the geometric mean divides nothing
        for (std::size_t i = 0; i < dims.size() && i < speed.size(); ++i) {
            if (i >= yours.size() || i >= base.size()) {
                problems.push_back(title + " at " + dims[i] + ": a CPE row is short");
                continue;
            }
            if (yours[i] == "-" || base[i] == "-") continue;  // the row says why not
            const double c = std::stod(yours[i]), b = std::stod(base[i]), s = std::stod(speed[i]);
            if (b == 0 && s == 0) continue;                   // no baseline: no speedup to divide
            if (!divides_within_rounding(b, c, s))
                problems.push_back(title + " at " + dims[i] + ": " + base[i] + " / " + yours[i] + " is not " + speed[i]);
        }
    };
    while (std::getline(in, line)) {
        if (line.find(": Version = ") != std::string::npos) {
            title = line;
            table.clear();
        } else if (line.empty()) {
            check_table();
            table.clear();
        } else {
            table.push_back(line);
        }
    }
    check_table();
    return problems;
}

// The same in the JSON: the typical pair divides exactly, and a fixed baseline's
// speedup is its CPE over the fastest.
std::vector<std::string> json_inconsistencies(const json& r) {
    std::vector<std::string> problems;
    for (const auto& [name, k] : r["kernels"].items())
        for (const auto& v : k["variants"])
            for (const auto& d : v["dims"]) {
                const std::string where = name + " " + v["name"].get<std::string>() + " at " + std::to_string(d["dim"].get<int>());
                const double s = d["speedup"].get<double>();
                if (s == 0) continue;
                const bool paired = d.contains("speedup_interval");
                if (paired && !d.contains("typical_cpes")) {
                    problems.push_back(where + ": paired, without typical_cpes");
                    continue;
                }
                const double ratio = paired ? d["typical_cpes"]["baseline_cpe"].get<double>() / d["typical_cpes"]["cpe"].get<double>()
                                            : d["baseline_cpe"].get<double>() / d["cpe"].get<double>();
                if (std::abs(ratio - s) > 1e-9 * s) problems.push_back(where + ": ratio " + std::to_string(ratio));
            }
    return problems;
}

}  // namespace

TEST_CASE("the consistency check finds a speedup its CPEs do not divide to", "[report]") {
    perflab::DimResult d;
    d.dim = 256, d.cpe = 1.5, d.baseline_cpe = 2.6, d.speedup = 1.1, d.converged = true;
    d.speedup_low = 1.05, d.speedup_high = 1.15;
    perflab::KernelResult k;
    k.dims = {256};
    perflab::VariantResult v;
    v.name = "rotate: blocked";
    v.mean_speedup = 1.1;
    v.dims = {d};
    // What the issue saw: the fastest CPEs (2.6 / 1.5 = 1.7) beside a median paired ratio.
    CHECK(inconsistencies("Rotate: Version = x:\nDim\t\t256\tMean\nYour CPEs\t1.5\nBaseline CPEs\t2.6\nSpeedup\t\t1.1\t1.1\n\n")
              .size() == 1);
    // The report shows the typical pair the speedup stands for: it divides.
    v.dims[0].typical_cpe = 1.9, v.dims[0].typical_baseline_cpe = 1.9 * 1.1;
    const std::string printed = perflab::test::text_report(k, v);
    INFO(printed);
    CHECK(printed.find("Your paired\t1.9\n") != std::string::npos);
    CHECK(printed.find("Baseline paired\t2.1\n") != std::string::npos);
    CHECK(printed.find("Speedup = Baseline paired / Your paired") != std::string::npos);
    CHECK(inconsistencies(printed).empty());
}

TEST_CASE("every fixture's report: the printed CPEs divide to the printed speedup", "[report][driver]") {
    std::vector<std::string> sources{"kernels/kernels.c"};
    for (const auto& e : std::filesystem::directory_iterator(repo("tests/fixtures/kernels")))
        if (e.path().extension() == ".c") sources.push_back(e.path().string());
    std::sort(sources.begin() + 1, sources.end());
    int tables = 0;
    for (const auto& source : sources) {
        const std::string name = std::filesystem::path(source).stem().string();
        {
            INFO(name);
            const std::string dir = scratch_dir("consistency-" + name);
            const auto r = run({build_driver(source), "-t", "--dims", "32,64", "--max-samples", "12", "--timeout", "2",
                                "--json", dir + "/r.json"});
            INFO(r.out << r.err);
            for (const auto& p : inconsistencies(r.out)) FAIL_CHECK(p);
            tables += int(lines_starting_with(r.out, "Speedup\t").size());
            if (std::filesystem::exists(dir + "/r.json"))
                for (const auto& p : json_inconsistencies(json::parse(read_file(dir + "/r.json")))) FAIL_CHECK(p);
        }
    }
    CHECK(tables > 0);
}

TEST_CASE("with a fixed baseline the speedup divides the CPE rows, and the legend says so", "[report][driver]") {
    const std::string dir = scratch_dir("consistency-fixed");
    write_file(dir + "/baseline.toml", "[rotate.cpe]\n32 = 3.0\n64 = 4.0\n\n[smooth.cpe]\n32 = 30.0\n64 = 40.0\n");
    const auto r = run({build_driver("tests/fixtures/kernels/fast.c"), "-t", "--dims", "32,64", "--max-samples", "12",
                        "--baseline", dir + "/baseline.toml", "--json", dir + "/r.json"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("Speedup = Baseline CPEs / Your CPEs") != std::string::npos);
    CHECK(r.out.find("Your paired") == std::string::npos);
    CHECK(inconsistencies(r.out).empty());
    CHECK(json_inconsistencies(json::parse(read_file(dir + "/r.json"))).empty());
}
