// make bench-model: issue 45's goals for the machine model (docs/model.md), measured
// in one run and printed each against its target.
//   1. identical code, identical figures: every corpus file's model speedups from
//      two runs and a third with every core kept busy, equal to the last digit (and
//      so points spread 0.0 under basis = "model");
//   2. the model ranks like the hardware: Spearman between the model's and the timed
//      speedups, per kernel, over the reference variants and bench/corpus/ (>= 0.9);
//      the timed figures are this run's, on whatever machine runs it: say how quiet;
//   3. a stock ./driver run with no model, and one with --model, at the default dims
//      (the latter under 30 s);
//   4. the grader on basis = "model": 20 copies of one honest hand-in graded on one
//      core, on every core, and on every core again with every core kept busy -
//      points spread 0.0, speedups equal to the last digit - and the hand-ins per
//      minute of the first two (>= 10 on 2 cores, and more with more jobs).
// Timings are never asserted in tests; this is where they are judged.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <algorithm>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/atomic_file.hpp"
#include "common/read_file.hpp"
#include "driver/core/scoring.hpp"
#include "common/statistics.hpp"
#include "common/subprocess.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kKernels[] = {"rotate", "smooth"};

[[noreturn]] void fail(const std::string& why) {
    std::fprintf(stderr, "bench-model: %s\n", why.c_str());
    std::exit(1);
}

struct Run {
    json report;
    double seconds = 0;
};

// One driver run of `host` with `args`, its report kept as NAME.json in `work`.
Run driver_run(const std::string& driver, const std::string& host, const std::string& work, const std::string& name,
               std::vector<std::string> args) {
    const std::string path = work + "/runs/" + name + ".json";
    fs::create_directories(work + "/runs");
    std::vector<std::string> argv{driver, "-t", "--host", host, "--json", path};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto start = std::chrono::steady_clock::now();
    perflab::Finished f = perflab::spawn(perflab::command(argv, 1200));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!f.exited_ok()) fail(fmt::format("{} --host {} {}: {}", driver, host, f.describe(), f.output.substr(0, 400)));
    std::ifstream in(path);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) fail(path + " is not a JSON report");
    return {j, seconds};
}

// Every core busy with a spinning process while it lives.
class Load {
public:
    Load() {
        for (long i = 0, n = sysconf(_SC_NPROCESSORS_ONLN); i < n; ++i) {
            pid_t pid = fork();
            if (pid == 0)
                for (volatile unsigned long x = 0;;) x = x + 1;
            pids_.push_back(pid);
        }
    }
    ~Load() {
        for (pid_t p : pids_) kill(p, SIGKILL), waitpid(p, nullptr, 0);
    }

private:
    std::vector<pid_t> pids_;
};

json g_figures = json::object();

void report(const std::string& key, const std::string& what, double value, const std::string& shown,
            const std::string& target, bool met) {
    g_figures[key] = {{"what", what}, {"value", value}, {"target", target}, {"met", met}};
    fmt::print("  {:<62} {:>10}  {:<10} {}\n", what, shown, target, met ? "met" : "MISSED");
    std::fflush(stdout);
}

// (name, timed mean speedup, model mean speedup) of every variant of `kernel` that
// has both.
struct Point {
    std::string name;
    double timed, model;
};
std::vector<Point> points_of(const json& report, const char* kernel, const std::string& prefix) {
    std::vector<Point> out;
    for (const auto& v : report["kernels"][kernel]["variants"])
        if (v["mean_speedup"].is_number() && v["model_mean_speedup"].is_number())
            out.push_back({prefix + v["name"].get<std::string>(), v["mean_speedup"].get<double>(),
                           v["model_mean_speedup"].get<double>()});
    return out;
}

struct Batch {
    std::vector<json> records;
    double seconds = 0;
};

// `copies` copies of `handin` graded by `grader` on the model basis with `jobs`.
Batch grade_copies(const std::string& grader, const std::string& handin, const std::string& work, const std::string& name,
                   int copies, int jobs) {
    const std::string dir = work + "/grader/" + name;
    fs::remove_all(dir);
    fs::create_directories(dir + "/handins");
    for (int i = 0; i < copies; ++i) fs::copy_file(handin, fmt::format("{}/handins/copy{:02}.c", dir, i));
    perflab::ScoringPolicy policy = perflab::default_policy();
    policy.basis = perflab::Basis::model;
    perflab::write_file_atomically(dir + "/policy.toml", perflab::policy_to_toml(policy, "bench-model: the default "
                                                                                         "curves on the model basis."));
    const std::vector<std::string> argv{grader, "grade", dir + "/handins", "--out", dir + "/out", "--policy",
                                        dir + "/policy.toml", "--jobs", std::to_string(jobs)};
    const auto start = std::chrono::steady_clock::now();
    perflab::Finished f = perflab::spawn(perflab::command(argv, 3600));
    Batch b;
    b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!f.exited_ok()) fail(fmt::format("{} {}: {}", fmt::join(argv, " "), f.describe(), f.output.substr(0, 400)));
    std::istringstream lines(perflab::read_file(dir + "/out/results.jsonl").value_or(""));
    for (std::string line; std::getline(lines, line);) b.records.push_back(json::parse(line));
    if (int(b.records.size()) != copies) fail(fmt::format("{}: {} records for {} hand-ins", dir, b.records.size(), copies));
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 8) fail("usage: model_bench DRIVER GRADER REFERENCE_HOST WORK_DIR HANDIN STOCK_HOST CORPUS_HOST...");
    const std::string driver = argv[1], grader = argv[2], reference = argv[3], work = fs::absolute(argv[4]).string(),
                      handin = argv[5], stock = argv[6];
    const std::vector<std::string> corpus(argv + 7, argv + argc);
    fs::create_directories(work);

    fmt::print("bench-model: the machine model's goals (docs/model.md)\n");
    std::vector<std::string> load_note;
    {
        std::ifstream in("/proc/loadavg");
        std::string l1;
        in >> l1;
        fmt::print("  load average at the start: {} on {} CPUs (timed figures below are as quiet as that)\n", l1,
                   sysconf(_SC_NPROCESSORS_ONLN));
        g_figures["load_average_at_start"] = l1;
    }

    // 1 and 2: each corpus file graded (-g) with the model, twice, and once under load.
    std::map<std::string, std::vector<Point>> ranked;
    std::vector<std::string> differing;
    std::size_t compared = 0;
    for (const auto& host : corpus) {
        const std::string name = fs::path(host).filename().string();
        std::vector<json> runs;
        for (int i = 0; i < 2; ++i)
            runs.push_back(driver_run(driver, host, work, fmt::format("{}-{}", name, i + 1), {"-g", "--model"}).report);
        {
            Load load;
            runs.push_back(driver_run(driver, host, work, name + "-loaded", {"-g", "--model"}).report);
        }
        for (const char* k : kKernels) {
            const json& v0 = runs[0]["kernels"][k]["variants"].at(0);
            for (std::size_t r = 1; r < runs.size(); ++r) {
                const json& v = runs[r]["kernels"][k]["variants"].at(0);
                ++compared;
                if (v["model_mean_speedup"] != v0["model_mean_speedup"]) differing.push_back(name + " " + k);
                for (std::size_t d = 0; d < v["dims"].size(); ++d)
                    if (v["dims"][d].value("model", json()) != v0["dims"][d].value("model", json()))
                        differing.push_back(fmt::format("{} {} dim {}", name, k, v["dims"][d]["dim"].get<int>()));
            }
            for (auto& p : points_of(runs[0], k, name + ": ")) ranked[k].push_back(p);
        }
    }
    report("identical_model_figures",
           fmt::format("{} corpus files, 2 runs + 1 under load: model figures differing", corpus.size()),
           double(differing.size()), fmt::format("{} of {}", differing.size(), compared), "0", differing.empty());
    for (const auto& d : differing) fmt::print("    differs: {}\n", d);

    // The reference variants (and the oracle) in the driver's own reference host.
    const json refs = driver_run(driver, reference, work, "reference-variants", {"--model"}).report;
    for (const char* k : kKernels)
        for (auto& p : points_of(refs, k, "reference: ")) ranked[k].push_back(p);
    for (const char* k : kKernels) {
        std::vector<double> timed, model;
        for (const auto& p : ranked[k]) timed.push_back(p.timed), model.push_back(p.model);
        const double rho = perflab::spearman(timed, model);
        report(fmt::format("spearman_{}", k),
               fmt::format("{}: Spearman, model vs timed speedup, {} variants", k, ranked[k].size()), rho,
               fmt::format("{:.2f}", rho), ">= 0.90", rho >= 0.9);
        json rows = json::array();
        for (const auto& p : ranked[k]) {
            fmt::print("    {:<64} timed {:5.2f}  model {:5.2f}\n", p.name.substr(0, 64), p.timed, p.model);
            rows.push_back({{"variant", p.name}, {"timed", p.timed}, {"model", p.model}});
        }
        g_figures[fmt::format("variants_{}", k)] = rows;
    }

    // 3: the stock kernels at the default dims, without and with the model.
    const double plain = driver_run(driver, stock, work, "stock", {}).seconds;
    const double modelled = driver_run(driver, stock, work, "stock-model", {"--model"}).seconds;
    report("stock_seconds", "stock ./driver, default dims, no model: wall seconds", plain, fmt::format("{:.1f}", plain),
           "as before", true);
    report("model_seconds", "stock ./driver --model, default dims: wall seconds", modelled,
           fmt::format("{:.1f}", modelled), "< 30", modelled < 30);

    // 4: the grader on the model basis.
    constexpr int kCopies = 20;
    const int cores = int(sysconf(_SC_NPROCESSORS_ONLN));
    fmt::print("  grading {} copies of {} on basis = \"model\" ...\n", kCopies, handin);
    std::fflush(stdout);
    const Batch one = grade_copies(grader, handin, work, "one-job", kCopies, 1);
    const Batch all = grade_copies(grader, handin, work, "all-jobs", kCopies, cores);
    Batch loaded;
    {
        Load load;
        loaded = grade_copies(grader, handin, work, "all-jobs-loaded", kCopies, cores);
    }
    std::vector<double> totals;
    std::set<std::string> speedups;
    std::size_t not_ok = 0;
    for (const Batch* b : {&one, &all, static_cast<const Batch*>(&loaded)})
        for (const auto& r : b->records) {
            not_ok += r["status"] != "ok";
            totals.push_back(r["total"].get<double>());
            speedups.insert(r["rotate_speedup"].dump() + " " + r["smooth_speedup"].dump());
        }
    const double spread = *std::max_element(totals.begin(), totals.end()) - *std::min_element(totals.begin(), totals.end());
    report("identical_copies_points_spread",
           fmt::format("{} copies x 3 batches (1 job, {} jobs, {} jobs under load): points spread", kCopies, cores, cores),
           spread, fmt::format("{:.1f}", spread), "0.0", spread == 0 && not_ok == 0);
    report("identical_copies_speedups",
           "the same batches: distinct (rotate, smooth) model speedups", double(speedups.size()),
           fmt::format("{}", speedups.size()), "1", speedups.size() == 1 && not_ok == 0);
    if (not_ok) fmt::print("    {} records were not ok: see {}/grader/*/out/gradebook.csv\n", not_ok, work);
    const double per_minute_one = 60 * kCopies / one.seconds, per_minute_all = 60 * kCopies / all.seconds;
    report("handins_per_minute_1_job", "grader on the model basis, 1 job: hand-ins per minute", per_minute_one,
           fmt::format("{:.1f}", per_minute_one), "(reference)", true);
    report("handins_per_minute_all_jobs", fmt::format("grader on the model basis, {} jobs: hand-ins per minute", cores),
           per_minute_all, fmt::format("{:.1f}", per_minute_all), fmt::format(">= 10, > {:.1f}", per_minute_one),
           per_minute_all >= 10 && (cores == 1 || per_minute_all > per_minute_one));

    perflab::write_file_atomically(work + "/figures.json", g_figures.dump(2) + "\n");
    fmt::print("  figures: {}/figures.json; every run's report: {}/runs/\n", work, work);
    return 0;
}
