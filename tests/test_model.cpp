// The model machine (docs/model.md): its [model] table in the policy, the instruction
// classes, the modelled figures through the real driver, and the hostile kernels
// that try to change what the model counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "driver/core/results.hpp"
#include "driver/core/scoring.hpp"
#include "driver/model/instruction_classes.hpp"
#include "driver/model/machine_model.hpp"
#include "grader/static_checks.hpp"
#include "harness.hpp"
#include "json_schema.hpp"

using namespace perflab;
using namespace perflab::test;
using nlohmann::json;

namespace {

const std::string kCurves = "[rotate]\nmax_points = 50\ncurve = [[1, 0], [3, 50]]\n"
                            "[smooth]\nmax_points = 50\ncurve = [[1, 0], [2, 50]]\n";

// The one-line error parse_policy throws for `text`, or "" when it parses.
std::string policy_error(const std::string& text) {
    try {
        parse_policy(text, "p.toml");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a policy without basis or [model] grades by timing on the default model", "[model][scoring]") {
    ScoringPolicy p = parse_policy(kCurves, "p.toml");
    CHECK(p.basis == Basis::timing);
    CHECK(p.model == default_machine_model());
    // Written back, a timing policy reads as it always did: no basis, no [model].
    std::string text = policy_to_toml(p, "c");
    CHECK(text.find("basis") == std::string::npos);
    CHECK(text.find("[model]") == std::string::npos);
}

TEST_CASE("the [model] table overrides the defaults it names and round-trips", "[model][scoring]") {
    ScoringPolicy p = parse_policy("basis = \"model\"\n" + kCurves +
                                       "[model]\nseed = 7\nl1d_bytes = 65536\nl1d_ways = 4\nll_miss_cycles = 99.5\n"
                                       "[model.cycles]\ndiv = 20\nload = 0.5\n",
                                   "p.toml");
    CHECK(p.basis == Basis::model);
    MachineModel d = default_machine_model();
    CHECK(p.model.seed == 7);
    CHECK(p.model.l1d == ModelCache{65536, 4});
    CHECK(p.model.ll == d.ll);
    CHECK(p.model.ll_miss_cycles == 99.5);
    CHECK(p.model.l1d_miss_cycles == d.l1d_miss_cycles);
    CHECK(p.model.instr_cycles[std::size_t(InstrClass::div)] == 20);
    CHECK(p.model.instr_cycles[std::size_t(InstrClass::alu)] == d.instr_cycles[std::size_t(InstrClass::alu)]);
    CHECK(p.model.load_cycles == 0.5);
    ScoringPolicy again = parse_policy(policy_to_toml(p, "round trip"), "again.toml");
    CHECK(again.basis == Basis::model);
    CHECK(again.model == p.model);
    CHECK(again.rotate.curve == p.rotate.curve);
}

TEST_CASE("a wrong basis or [model] key is refused in one line naming it", "[model][scoring]") {
    struct Case {
        std::string text, names;
    };
    for (const auto& c : std::vector<Case>{
             {"basis = \"fastest\"\n", "basis"},
             {"basis = 3\n", "basis"},
             {"[model]\nl2_bytes = 1\n", "unknown key [model] l2_bytes"},
             {"[model]\nseed = -1\n", "[model] seed"},
             {"[model]\nseed = 1.5\n", "[model] seed"},
             {"[model]\nl1d_ways = 0\n", "[model] l1d_ways"},
             {"[model]\nl1d_bytes = 30000\n", "[model] l1d_bytes"},  // not a power-of-two set count
             {"[model]\nline_bytes = 48\n", "line_bytes"},
             {"[model]\nll_bytes = 16384\n", "[model] ll_bytes"},     // smaller than L1d
             {"[model]\nll_miss_cycles = -3\n", "[model] ll_miss_cycles"},
             {"[model]\nl1d_miss_cycles = \"ten\"\n", "[model] l1d_miss_cycles"},
             {"[model]\ntiming_bound = 0.5\n", "[model] timing_bound"},
             {"[model]\ncycles = 3\n", "[model] cycles"},
             {"[model.cycles]\nsimd = 1\n", "unknown key [model.cycles] simd"},
             {"[model.cycles]\nalu = nan\n", "[model.cycles] alu"},
             {"model = 3\n", "model must be a table"},
         }) {
        INFO(c.text);
        std::string error = policy_error((c.text.rfind("basis", 0) == 0 || c.text.rfind("model =", 0) == 0)
                                             ? c.text + kCurves
                                             : kCurves + c.text);
        CHECK(error.find(c.names) != std::string::npos);
        CHECK(error.find("p.toml") == 0);
        CHECK(error.find('\n') == std::string::npos);
    }
}

TEST_CASE("under the model basis the points come from the model speedup", "[model][scoring]") {
    RunResult run;
    KernelResult k;
    k.kernel = Kernel::rotate;
    VariantResult v;
    v.name = "rotate: graded";
    v.graded = true;
    v.mean_speedup = 2.0;
    v.model_mean_speedup = 3.0;
    k.variants.push_back(v);
    run.kernels.push_back(k);
    ScoringPolicy p = parse_policy(kCurves, "p.toml");
    score_run(run, p);
    CHECK(run.basis == Basis::timing);
    CHECK(*run.kernels[0].points == Approx(25));
    CHECK(*run.kernels[0].variants[0].model_points == Approx(50));
    p.basis = Basis::model;
    score_run(run, p);
    CHECK(run.basis == Basis::model);
    CHECK(*run.kernels[0].points == Approx(50));
    CHECK(*run.total_points == Approx(50));
    // Flagged (no model speedup): no points under the model basis, whatever the timing says.
    run.kernels[0].variants[0].model_mean_speedup.reset();
    run.kernels[0].variants[0].model_flag = "ran otherwise under the simulator";
    score_run(run, p);
    CHECK(*run.kernels[0].points == 0);
    CHECK(!run.kernels[0].variants[0].points);
}

TEST_CASE("instructions fall into the model's classes", "[model]") {
    struct Case {
        const char *mnemonic, *operands;
        InstrClass expected;
    };
    for (const auto& c : std::vector<Case>{
             {"mov", "(%rax),%ecx", InstrClass::alu},
             {"movzbl", "(%rdi),%eax", InstrClass::alu},
             {"movsbl", "%al,%eax", InstrClass::alu},
             {"lea", "0x8(%rax,%rbx,2),%rcx", InstrClass::alu},
             {"shrq", "$0x3,%rax", InstrClass::alu},
             {"cmovge", "%edx,%eax", InstrClass::alu},
             {"nopw", "0x0(%rax,%rax,1)", InstrClass::alu},
             {"cs nopw", "0x0(%rax,%rax,1)", InstrClass::alu},
             {"imul", "%esi,%eax", InstrClass::mul},
             {"imull", "$0x5556,%eax,%eax", InstrClass::mul},
             {"idivl", "%ecx", InstrClass::div},
             {"div", "%rcx", InstrClass::div},
             {"jne", "401020 <f+0x20>", InstrClass::branch},
             {"jmp", "*%rax", InstrClass::branch},
             {"notrack jmp", "*%rax", InstrClass::branch},
             {"call", "401000 <g>", InstrClass::branch},
             {"ret", "", InstrClass::branch},
             {"paddw", "%xmm1,%xmm0", InstrClass::vector},
             {"movdqu", "(%rsi),%xmm0", InstrClass::vector},
             {"vpshufb", "%ymm2,%ymm1,%ymm0", InstrClass::vector},
             {"pmullw", "%xmm1,%xmm0", InstrClass::vector_mul},
             {"vfmadd231ps", "%ymm2,%ymm1,%ymm0", InstrClass::vector_mul},
             {"divss", "%xmm1,%xmm0", InstrClass::fp_div},
             {"sqrtsd", "%xmm1,%xmm0", InstrClass::fp_div},
             {"cvtsi2ss", "%eax,%xmm0", InstrClass::other},
             {"rep stos", "%rax,%es:(%rdi)", InstrClass::other},
             {"movsb", "%ds:(%rsi),%es:(%rdi)", InstrClass::other},
             {"cpuid", "", InstrClass::other},
             {"fldl", "(%rax)", InstrClass::other},
         }) {
        INFO(c.mnemonic << " " << c.operands);
        CHECK(instr_class_name(classify_instruction(c.mnemonic, c.operands)) == instr_class_name(c.expected));
    }
}

// ---- through the real driver ----

namespace {

json model_report(const std::string& driver, std::vector<std::string> args, const std::string& name) {
    std::string path = scratch_dir("model-" + name) + "/r.json";
    args.insert(args.begin(), driver);
    args.insert(args.end(), {"-t", "--max-samples", "2", "--json", path});
    auto r = run(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return json::parse(read_file(path));
}

// Every model figure of a report, in order: what must not move between runs.
std::vector<json> model_figures(const json& report) {
    std::vector<json> out;
    for (const auto& [kernel, k] : report["kernels"].items())
        for (const auto& v : k["variants"]) {
            out.push_back(v["model_mean_speedup"]);
            for (const auto& d : v["dims"]) out.push_back(d.value("model", json(nullptr)));
        }
    return out;
}

const json& report_schema() {
    static const json s = json::parse(read_file(repo("docs/report.schema.json")));
    return s;
}

const json* variant_named(const json& report, const std::string& kernel, const std::string& prefix) {
    for (const auto& v : report["kernels"][kernel]["variants"])
        if (v["name"].get<std::string>().rfind(prefix, 0) == 0) return &v;
    return nullptr;
}

}  // namespace

TEST_CASE("the model's figures are the same bit for bit across runs and under load", "[model]") {
    const std::string driver = build_driver("tests/fixtures/kernels/fast.c");
    const std::vector<std::string> args{"--model", "--dims", "64,128"};
    json quiet = model_report(driver, args, "quiet");
    json loaded;
    {
        BusyLoops busy(1);  // every core spinning: the model must not notice
        loaded = model_report(driver, args, "loaded");
    }
    auto a = model_figures(quiet), b = model_figures(loaded);
    REQUIRE(a.size() > 4);
    CHECK(a == b);  // doubles compared exactly, as the JSON writes them in full
    for (const auto& f : a) CHECK_FALSE(f.is_null());
    CHECK(quiet["model"] == loaded["model"]);
}

TEST_CASE("the model's figures are the same in the grader's sandbox as outside it", "[model][sandbox]") {
    // The grader runs the driver with --sandbox; the model's run then has the program
    // handed to it, which once cost callgrind the program's symbols (it counted nothing).
    const std::string driver = build_driver("tests/fixtures/kernels/fast.c");
    json open = model_report(driver, {"--model", "--dims", "64"}, "open");
    json boxed = model_report(driver, {"--model", "--dims", "64", "--sandbox"}, "sandboxed");
    INFO(boxed.value("model_unavailable", json()).dump());
    CHECK(boxed["model_unavailable"].is_null());
    auto a = model_figures(open), b = model_figures(boxed);
    REQUIRE(a.size() > 2);
    for (const auto& f : b) CHECK_FALSE(f.is_null());
    CHECK(a == b);
}

TEST_CASE("--model shows the model's figures beside the timed ones, and the stock run has none", "[model][cli]") {
    const std::string driver = build_driver("tests/fixtures/kernels/fast.c");
    std::string dir = scratch_dir("model-cli");
    auto r = run({driver, "-t", "--model", "--dims", "64", "--max-samples", "2", "--json", dir + "/r.json"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("Model machine (docs/model.md): L1d 32 KiB 8-way, LL 1 MiB 16-way, 64 B lines") != std::string::npos);
    CHECK(lines_starting_with(r.out, "Model speedup").size() == 3);  // two rotates, one smooth
    CHECK(lines_starting_with(r.out, "Model cyc/px").size() == 3);
    CHECK(lines_starting_with(r.out, "Model score (if the basis were the model):").size() == 1);
    json report = json::parse(read_file(dir + "/r.json"));
    auto errors = validate_json(report, report_schema());
    for (const auto& e : errors) UNSCOPED_INFO(e);
    CHECK(errors.empty());
    CHECK(report["basis"] == "timing");
    CHECK(report["model"]["l1d"]["bytes"] == 32768);
    const json& v = report["kernels"]["rotate"]["variants"][0];
    CHECK(v["model_mean_speedup"].get<double>() == Approx(1.0));  // rotate() is the oracle's code
    CHECK(v["dims"][0]["model"]["oracle_cycles_per_pixel"].get<double>() > 0);

    // Without --model or a model basis nothing of it runs or shows.
    auto stock = run({driver, "-t", "--dims", "64", "--max-samples", "2", "--json", dir + "/stock.json"});
    REQUIRE(stock.status == 0);
    CHECK(stock.out.find("Model") == std::string::npos);
    json plain = json::parse(read_file(dir + "/stock.json"));
    CHECK(plain["model"].is_null());
    CHECK(plain["kernels"]["rotate"]["variants"][0]["model_mean_speedup"].is_null());
    CHECK_FALSE(plain["kernels"]["rotate"]["variants"][0]["dims"][0].contains("model"));
    CHECK(validate_json(plain, report_schema()).empty());
}

TEST_CASE("a policy with basis = \"model\" grades by the model without --model", "[model][cli]") {
    const std::string driver = build_driver("tests/fixtures/kernels/fast.c");
    std::string dir = scratch_dir("model-basis");
    write_file(dir + "/policy.toml", "basis = \"model\"\n[rotate]\nmax_points = 50\ncurve = [[0.5, 0], [1.5, 50]]\n"
                                     "[smooth]\nmax_points = 50\ncurve = [[0.5, 0], [1.5, 50]]\n[model]\nseed = 99\n");
    auto r = run({driver, "-t", "--policy", dir + "/policy.toml", "--dims", "64", "--max-samples", "2", "--json",
                  dir + "/r.json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(lines_starting_with(r.out, "Score (model machine):").size() == 1);
    CHECK(r.out.find("seed 99") != std::string::npos);
    json report = json::parse(read_file(dir + "/r.json"));
    CHECK(report["basis"] == "model");
    CHECK(report["model"]["seed"] == 99);
    // The model speedup of the oracle's own code is 1 exactly: 25 points on this curve.
    CHECK(report["kernels"]["rotate"]["points"].get<double>() == Approx(25));
    const json& smooth = report["kernels"]["smooth"];
    const json* graded = variant_named(report, "smooth", "smooth()");
    if (!graded) graded = &smooth["variants"][0];
    CHECK(smooth["points"].get<double>() == Approx(std::clamp(((*graded)["model_mean_speedup"].get<double>() - 0.5) * 50, 0.0, 50.0)));
    CHECK(report["total_points"].get<double>() == Approx(25 + smooth["points"].get<double>()));
}

TEST_CASE("hostile kernels cannot change what the model counts: each is refused or flagged", "[model]") {
    struct Case {
        const char* fixture;
        const char* variant;
        const char* flag;
        bool graded_flagged;  // the whole binary is refused, the honest rotate() with it
    };
    for (const auto& c : std::vector<Case>{
             {"model_client_request", "uncounted", "client-request preamble", true},
             {"model_asm_bytes", "hidden", "client-request preamble", true},
             {"model_renames_call", "toggling", "2 functions named perflab_host_modelled_call", true},
             {"model_detects_valgrind", "sly", "differs from the oracle's", false},
             {"model_slow_natively", "two-faced", "times its timed speedup", false},
         }) {
        INFO(c.fixture);
        json report = model_report(build_driver(std::string("tests/fixtures/kernels/") + c.fixture + ".c"),
                                   {"--model", "--dims", "64", "--kernel", "rotate"}, c.fixture);
        const json* v = variant_named(report, "rotate", c.variant);
        REQUIRE(v);
        CHECK((*v)["correct"] == true);  // right on the machine
        REQUIRE((*v)["model_flag"].is_string());
        CHECK((*v)["model_flag"].get<std::string>().find(c.flag) != std::string::npos);
        CHECK((*v)["model_mean_speedup"].is_null());
        const json* graded = variant_named(report, "rotate", "rotate()");
        REQUIRE(graded);
        CHECK((*graded)["model_flag"].is_string() == c.graded_flagged);
    }
}

TEST_CASE("the grader's static checks refuse valgrind client requests in the object", "[model][checks]") {
    std::string dir = scratch_dir("model-checks");
    for (const auto& [fixture, refused] : std::vector<std::pair<std::string, bool>>{
             {"model_client_request", true}, {"model_asm_bytes", true}, {"fast", false}}) {
        INFO(fixture);
        std::string object = dir + "/" + fixture + ".o";
        auto cc = run({"gcc", "-O2", "-I" + repo("kernels"), "-c", repo("tests/fixtures/kernels/" + fixture + ".c"), "-o",
                       object});
        REQUIRE(cc.status == 0);
        auto why = perflab::grader::client_request(object);
        CHECK(why.has_value() == refused);
        if (why) CHECK(why->find("client-request") != std::string::npos);
    }
}
