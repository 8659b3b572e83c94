// make bench-engine: the two-process engine against the one-process measurement it
// replaced. Every reference variant (reference/solutions.c, registered here as the
// old driver registered a kernels file) is timed in this process the old way - TSC
// around a direct call, fresh ChaCha20 images in huge pages, the L1 cleared - and the
// driver times the same variants in its kernel host (./driver --host
// build/solutions-host --json). Both use the same K-best settings; the table is the
// ratio of the two CPEs per variant and dimension, against the goal (within 5% at
// dims >= 128, 10% at 64). Run it on a quiet machine: the two runs are minutes apart.
#include <sys/mman.h>

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/affinity.hpp"
#include "common/clock.hpp"
#include "common/machine.hpp"
#include "common/sampler.hpp"
#include "driver/core/cache_clear.hpp"
#include "driver/core/input_generator.hpp"
#include "defs.h"

namespace {

struct Registered {
    char kernel;
    lab_test_func fn;
    std::string description;
};
std::vector<Registered> g_registered;

// Huge-page images, as the kernel host's.
pixel* huge_image(int dim) {
    const std::size_t bytes = (std::size_t(dim) * dim * sizeof(pixel) + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<pixel*>(p);
}

}  // namespace

extern "C" {
void register_rotate_functions(void);
void register_smooth_functions(void);
void add_rotate_function(lab_test_func f, char* d) { g_registered.push_back({'R', f, d}); }
void add_smooth_function(lab_test_func f, char* d) { g_registered.push_back({'S', f, d}); }
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DRIVER_REPORT.json (written by ./driver --json)\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    const auto report = nlohmann::json::parse(in, nullptr, false);
    if (report.is_discarded()) {
        std::fprintf(stderr, "%s: cannot read the driver's report '%s': run make bench-engine\n", argv[0], argv[1]);
        return 2;
    }
    std::vector<int> dims;
    for (const auto& d : report["config"]["dims"]["rotate"]) dims.push_back(d.get<int>());

    perflab::pin_to_one_cpu(std::nullopt);
    auto clock = perflab::make_default_clock();
    perflab::CacheClearer clearer(perflab::CacheClearer::size_for(perflab::read_machine_info()));
    perflab::InputGenerator inputs(std::nullopt);
    perflab::KBestConfig kbest;
    kbest.k = report["config"]["k"].get<int>();
    kbest.epsilon = report["config"]["epsilon"].get<double>();
    kbest.max_samples = report["config"]["max_samples"].get<int>();
    register_rotate_functions();
    register_smooth_functions();

    fmt::print("{:<60} {:>5} {:>9} {:>9} {:>7}  goal\n", "variant", "dim", "in-proc", "host", "ratio");
    int met = 0, missed = 0;
    for (const auto& r : g_registered) {
        const char* kernel = r.kernel == 'R' ? "rotate" : "smooth";
        const nlohmann::json* measured = nullptr;
        for (const auto& v : report["kernels"][kernel]["variants"])
            if (v["name"] == r.description) measured = &v;
        if (!measured) continue;
        for (std::size_t i = 0; i < dims.size() && i < (*measured)["dims"].size(); ++i) {
            const int dim = dims[i];
            pixel* src = huge_image(dim);
            pixel* dst = huge_image(dim);
            const std::size_t n = std::size_t(dim) * dim;
            auto k = perflab::k_best(kbest, [&] {
                inputs.fill({src, n});
                inputs.fill({dst, n});
                clearer.clear();
                const auto t0 = clock->start();
                r.fn(dim, src, dst);
                return double(clock->stop() - t0);
            });
            const double inproc = k.best / double(n);
            const double host = (*measured)["dims"][i]["cpe"].get<double>();
            const double ratio = host / inproc;
            const double goal = dim >= 128 ? 0.05 : 0.10;
            const bool ok = std::abs(ratio - 1) <= goal;
            (ok ? met : missed)++;
            fmt::print("{:<60} {:>5} {:>9.2f} {:>9.2f} {:>7.3f}  {} within {:.0f}%\n", r.description.substr(0, 60), dim,
                       inproc, host, ratio, ok ? "met   " : "MISSED", goal * 100);
        }
    }
    fmt::print("\n{} of {} figures within the goal ({} missed); clock: {}\n", met, met + missed, missed,
               clock->describe());
    return 0;
}
