// The classes the machine model prices an executed instruction by (docs/model.md):
// one list, so the policy's keys, the report and the classifier agree.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace perflab {

enum class InstrClass {
    alu,         // integer add/sub/logic/compare/shift/move/lea/setcc/cmov, nop
    mul,         // integer multiply
    div,         // integer divide
    branch,      // jumps, calls, returns
    vector,      // SIMD and scalar SSE/AVX arithmetic, logic, shuffles, moves
    vector_mul,  // SIMD and floating-point multiply
    fp_div,      // floating-point divide and square root
    other,       // anything else: conversions, string instructions, x87, system
};

inline constexpr std::size_t kInstrClassCount = 8;

// Also the keys of the policy's [model.cycles] table.
inline constexpr std::array<std::string_view, kInstrClassCount> kInstrClassNames{
    "alu", "mul", "div", "branch", "vector", "vector_mul", "fp_div", "other"};

constexpr std::string_view instr_class_name(InstrClass c) { return kInstrClassNames[std::size_t(c)]; }

// The class of one instruction as `objdump -d --no-show-raw-insn` (AT&T) prints it:
// its mnemonic and its operand text.
InstrClass classify_instruction(std::string_view mnemonic, std::string_view operands);

}  // namespace perflab
