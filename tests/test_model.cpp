// The model machine (docs/model.md): its [model] table in the policy, the instruction
// classes, the modelled figures through the real driver, and the hostile kernels
// that try to change what the model counts.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "driver/core/results.hpp"
#include "driver/core/scoring.hpp"
#include "driver/model/instruction_classes.hpp"
#include "driver/model/machine_model.hpp"
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
