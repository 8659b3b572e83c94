// The speedup estimator on a fake clock: the median of per-round ratios, its
// order-statistic interval, and sampling that stops once the interval is narrow.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/paired_ratio.hpp"
#include "common/sampler.hpp"
#include "driver/core/call_cost.hpp"
#include "harness.hpp"

using namespace perflab;

TEST_CASE("paired ratios cancel what the machine does to both sides of a round", "[driver][estimator]") {
    // The variant is twice as fast as the oracle. Every round the machine slows
    // both by the same factor, and once it hands the oracle a lucky short sample.
    const std::vector<double> slowdown{1.0, 1.3, 1.1, 1.7, 1.0, 1.2, 1.5, 1.05, 1.4, 1.1, 1.25, 1.0};
    std::vector<double> oracle, variant;
    for (double s : slowdown) {
        oracle.push_back(200 * s);
        variant.push_back(100 * s);
    }
    oracle[4] = 150;  // 25% below the oracle's true floor: min/min would say 1.5
    CHECK(oracle[4] / variant[0] == Approx(1.5));
    RatioEstimate r = paired_ratio(oracle, variant);
    CHECK(r.pairs == 12);
    CHECK(r.value == Approx(2.0));
    CHECK(r.low <= 2.0);
    CHECK(r.high == Approx(2.0));
    CHECK(r.half_width() < 0.2);
}

TEST_CASE("the interval comes from the binomial ranks around the median", "[driver][estimator]") {
    // Ratios 1..16 (in scrambled order). With n = 16 the ranks are
    // floor(8 - 1.96*4/2) = 4 and ceil(1 + 8 + 1.96*4/2) = 13 (1-based).
    std::vector<double> num, den;
    for (int v : {7, 3, 16, 1, 12, 5, 9, 14, 2, 11, 8, 15, 4, 10, 6, 13}) {
        num.push_back(v * 10.0);
        den.push_back(10.0);
    }
    RatioEstimate r = paired_ratio(num, den);
    CHECK(r.value == Approx(8.5));
    CHECK(r.low == Approx(4));
    CHECK(r.high == Approx(13));
    CHECK(r.half_width() == Approx((13.0 - 4.0) / 2 / 8.5));
}

TEST_CASE("too few rounds give no trusted interval; bad samples are skipped", "[driver][estimator]") {
    RatioEstimate few = paired_ratio(std::vector<double>{2, 2, 2}, std::vector<double>{1, 1, 1});
    CHECK(few.value == Approx(2));
    CHECK(std::isinf(few.half_width()));  // three equal ratios are not proof of anything
    std::vector<double> num(kMinPairs + 2, 3.0), den(kMinPairs + 4, 1.0);
    num[0] = 0;    // a failed sample pairs with nothing
    den[1] = -1;
    RatioEstimate r = paired_ratio(num, den);
    CHECK(r.pairs == kMinPairs);  // the shorter length, less the two bad rounds
    CHECK(r.value == Approx(3));
    CHECK(r.half_width() == Approx(0));
    CHECK(paired_ratio(std::vector<double>{}, std::vector<double>{}).value == 0);
}

TEST_CASE("interleaved sampling stops when the caller has enough, else at the budget", "[driver][sampler]") {
    // The oracle's samples grow by 1% of the variant's each round: never three
    // equal, so K-best with epsilon 0 would not stop, while the ratios 2.00, 2.01,
    // ... stay within 5% of their median from the first trusted round on.
    int round = 0;
    auto variant = [] { return 100.0; };
    auto oracle = [&] { return 200.0 + round++; };
    auto enough = [](const std::vector<KBestResult>& r) { return paired_ratio(r[1].all, r[0].all).half_width() <= 0.05; };
    auto results = k_best_interleaved({3, 0.0, 500, 0.05}, {variant, oracle}, enough);
    CHECK(results[0].samples == kMinPairs);
    CHECK(results[1].samples == kMinPairs);
    CHECK_FALSE(results[1].converged);
    round = 0;
    auto never = [](const std::vector<KBestResult>&) { return false; };
    results = k_best_interleaved({3, 0.5, 30, 0.05}, {variant, oracle}, never);
    CHECK(results[0].converged);      // K-best agreement of both series does not stop it:
    CHECK(results[0].samples == 30);  // only the predicate or the budget
}

TEST_CASE("the driver reports each speedup with its interval and converges on it", "[driver][estimator]") {
    using namespace perflab::test;
    const std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    const std::string path = scratch_dir("paired-ratio") + "/r.json";
    auto r = run({exe, "--dims", "32,64", "--max-samples", "40", "--ratio-tolerance", "0.05", "--json", path});
    REQUIRE(r.status == 0);
    auto report = nlohmann::json::parse(read_file(path));
    CHECK(report["config"]["ratio_tolerance"] == 0.05);
    int figures = 0;
    for (const auto& [name, kernel] : report["kernels"].items())
        for (const auto& v : kernel["variants"])
            for (const auto& d : v["dims"]) {
                if (!v["correct"].get<bool>()) continue;
                REQUIRE(d.contains("speedup_interval"));
                const double low = d["speedup_interval"][0], high = d["speedup_interval"][1], s = d["speedup"];
                CHECK(low <= s);
                CHECK(s <= high);
                const int samples = d["samples"];
                CHECK(samples <= 40);
                // Converged exactly when the interval is inside the tolerance, with enough
                // rounds, and the call's cost could come out (call_cost.hpp).
                CHECK(d["converged"].get<bool>() == (samples >= kMinPairs && (high - low) / 2 / s <= 0.05 &&
                                                     d["speedup_call_cost_resolved"].get<bool>()));
                ++figures;
            }
    CHECK(figures >= 4);
}

TEST_CASE("a call's own cost comes out of a CPE as its floor and out of a speedup as its typical value",
          "[driver][estimator]") {
    // Five rounds on a fake clock: the variant's kernel takes 100 ticks, the oracle's
    // 200, and each round's call costs 50..90 ticks more, alike for all three calls.
    const std::vector<double> cost{70, 50, 90, 60, 80};
    std::vector<double> variant, oracle;
    for (double c : cost) {
        variant.push_back(100 + c);
        oracle.push_back(200 + c);
    }
    const KBestConfig config{3, 0.01, 300};
    // CPE: the least sample (150) less the least empty call (50).
    CHECK(k_best_less_call_cost(variant, cost, config).best == 100);
    CHECK(k_best_less_call_cost(oracle, cost, config).best == 200);
    // Speedup: less the median call (70) the middle round's ratio is exactly 2; the
    // least (50) would leave 20 ticks in both and read 220/120 = 1.83.
    const RatioEstimate r = speedup_less_call_cost(oracle, variant, cost);
    CHECK(r.value == Approx(2.0));
    CHECK(r.pairs == 5);
    CHECK(paired_ratio(less_call_cost(oracle, 50), less_call_cost(variant, 50)).value == Approx(220.0 / 120.0));
    // Never below one tick, and nothing subtracted without empty calls.
    CHECK(less_call_cost({40, 500}, 60) == std::vector<double>{1, 440});
    CHECK(k_best_less_call_cost(variant, {}, config).best == 150);
}

TEST_CASE("a call's cost is not taken out of a series it would empty", "[driver][estimator]") {
    const KBestConfig config{3, 0.01, 300};
    // The empty calls (a host of their own) came out slower than this host's whole
    // calls: subtracting their least would leave 1..11 ticks, a near-infinite speedup.
    const std::vector<double> empty{150, 160, 170, 180, 190};
    const std::vector<double> fast{161, 162, 163, 162, 161};
    const std::vector<double> oracle{400, 410, 405, 400, 402};
    CHECK_FALSE(cpe_call_cost_resolved(fast, empty, config.k));
    CHECK_FALSE(speedup_call_cost_resolved(fast, empty));
    CHECK(cpe_call_cost_resolved(oracle, empty, config.k));
    CHECK(speedup_call_cost_resolved(oracle, empty));
    const KBestResult cpe = k_best_less_call_cost(fast, empty, config);
    CHECK(cpe.best == 161);  // whole samples: the kernel is credited no speed unmeasured
    CHECK_FALSE(cpe.converged);
    // The speedup pairs whole samples: towards 1, never inflated past what was timed.
    const RatioEstimate r = speedup_less_call_cost(oracle, fast, empty);
    CHECK(r.value == Approx(paired_ratio(oracle, fast).value));
    CHECK(r.value < 2.6);
    // One sample above the empties' median is not enough for a speedup: the least must be.
    CHECK_FALSE(speedup_call_cost_resolved({165, 500}, empty));
    CHECK(speedup_call_cost_resolved({175, 500}, {150, 160, 170}));
    // Empty calls that agree exactly still leave a tenth of a call unknown: a kernel
    // shorter than that is not told from the call, by either figure.
    for (const std::vector<double>& s : {std::vector<double>{1010, 1200}, {1100, 1200}}) {
        CHECK_FALSE(speedup_call_cost_resolved(s, {1000, 1000, 1000}));
        CHECK_FALSE(cpe_call_cost_resolved(s, {1000, 1000, 1000}, config.k));
    }
    CHECK(speedup_call_cost_resolved({1101, 1200}, {1000, 1000, 1000}));
    CHECK(cpe_call_cost_resolved({1101, 1200}, {1000, 1000, 1000}, config.k));
}

TEST_CASE("a CPE takes the call's cost out where the floors are sure, though a typical call is not",
          "[driver][estimator]") {
    const KBestConfig config{3, 0.01, 300};
    // A busy neighbour: the calls' floor holds at 3000 ticks, but most calls cost
    // 3000-6000 more; the kernel adds 1100. The empties' median sits far above their
    // floor, so a typical call hides the kernel, while the floors (the three least
    // of each series within 30 and 10 ticks) leave it clear.
    std::vector<double> empty{3000, 3010, 3030}, kernel{4100, 4105, 4110};
    for (int i = 0; i < 40; ++i) {
        empty.push_back(6000 + 75 * i);
        kernel.push_back(7100 + 75 * i);
    }
    CHECK_FALSE(speedup_call_cost_resolved(kernel, empty));
    CHECK(cpe_call_cost_resolved(kernel, empty, config.k));
    const KBestResult cpe = k_best_less_call_cost(kernel, empty, config);
    CHECK(cpe.best == 1100);
    CHECK(cpe.converged);
    // Floors as unsure as the kernel is long: not resolved, the whole call kept.
    std::vector<double> loose_empty = empty, loose_kernel = kernel;
    loose_empty[1] = 3600, loose_empty[2] = 3700;
    loose_kernel[1] = 4700, loose_kernel[2] = 4800;
    CHECK_FALSE(cpe_call_cost_resolved(loose_kernel, loose_empty, config.k));
    CHECK(k_best_less_call_cost(loose_kernel, loose_empty, config).best == 4100);
    // A series a speedup may take the cost out of, a CPE may too, however loose its floors.
    CHECK(speedup_call_cost_resolved({1500, 1500, 2500}, {1000, 1010, 1900}));
    CHECK(cpe_call_cost_resolved({1500, 1500, 2500}, {1000, 1010, 1900}, config.k));
}
