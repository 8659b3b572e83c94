// Reads the reference driver's JSON report (make bench) and prints, for every
// reference variant and dimension, its CPE, its speedup over the naive oracle and
// its ratio to the memcpy row - all from the one run - then the targets.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

struct Target {
    const char* kernel;
    double min_speedup_at_512;
    double max_memcpy_ratio;
    int memcpy_from_dim;
};

const json* best_variant(const json& kernel) {
    const json* best = nullptr;
    for (const auto& v : kernel["variants"])
        if (v["mean_speedup"].is_number() &&
            (!best || v["mean_speedup"].get<double>() > (*best)["mean_speedup"].get<double>()))
            best = &v;
    return best;
}

void check_target(const json& kernel, const Target& t) {
    const json* best = best_variant(kernel);
    if (!best) {
        fmt::print("{}: no correct variant\n", t.kernel);
        return;
    }
    const json& sol = kernel["speed_of_light"]["dims"];
    bool speed_ok = true, memcpy_ok = true;
    std::string detail;
    for (std::size_t i = 0; i < (*best)["dims"].size(); ++i) {
        const json& d = (*best)["dims"][i];
        int dim = d["dim"];
        double ratio = d["cpe"].get<double>() / sol[i]["cpe"].get<double>();
        if (dim == 512) speed_ok = d["speedup"].get<double>() >= t.min_speedup_at_512;
        if (dim >= t.memcpy_from_dim) memcpy_ok = memcpy_ok && ratio <= t.max_memcpy_ratio;
        detail += fmt::format(" {}: {:.1f}x naive, {:.2f}x memcpy;", dim, d["speedup"].get<double>(), ratio);
    }
    fmt::print("{} best = {}\n ", t.kernel, (*best)["name"].get<std::string>());
    fmt::print("{}\n  target >= {:.0f}x naive at 512: {}; within {:.0f}x memcpy from {} up: {}\n", detail,
               t.min_speedup_at_512, speed_ok ? "reached" : "MISSED", t.max_memcpy_ratio, t.memcpy_from_dim,
               memcpy_ok ? "reached" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: {} build/bench.json\n", argv[0]);
        return 1;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        fmt::print(stderr, "bench_table: cannot read {}: run make bench\n", argv[1]);
        return 1;
    }
    json report = json::parse(in);
    const json& clock = report["machine"]["clock"];
    fmt::print("{} ({}); {}\n\n", report["machine"]["cpu_model"].get<std::string>(),
               clock["description"].get<std::string>(), report["config"]["baseline"].get<std::string>());
    fmt::print("{:<8} {:<72} {:>5} {:>8} {:>9} {:>9}\n", "kernel", "variant", "dim", "CPE", "x naive", "x memcpy");
    for (const char* k : {"rotate", "smooth"}) {
        const json& kernel = report["kernels"][k];
        const json& sol = kernel["speed_of_light"]["dims"];
        for (const auto& v : kernel["variants"])
            for (std::size_t i = 0; i < v["dims"].size(); ++i) {
                const json& d = v["dims"][i];
                fmt::print("{:<8} {:<72} {:>5} {:>8.2f} {:>9.2f} {:>9.2f}{}\n", k,
                           v["name"].get<std::string>().substr(0, 72), d["dim"].get<int>(), d["cpe"].get<double>(),
                           d["speedup"].get<double>(), d["cpe"].get<double>() / sol[i]["cpe"].get<double>(),
                           d["converged"].get<bool>() ? "" : " *");
            }
        for (std::size_t i = 0; i < sol.size(); ++i)
            fmt::print("{:<8} {:<72} {:>5} {:>8.2f}\n", k, "memcpy (speed of light)", sol[i]["dim"].get<int>(),
                       sol[i]["cpe"].get<double>());
    }
    fmt::print("\n* did not converge\n\nTargets (issue 3):\n");
    check_target(report["kernels"]["rotate"], {"rotate", 5, 2, 256});
    check_target(report["kernels"]["smooth"], {"smooth", 15, 4, 0});
    return 0;
}
