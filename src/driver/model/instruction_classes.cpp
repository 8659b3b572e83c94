#include "instruction_classes.hpp"

#include <array>
#include <string>

namespace perflab {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

bool any_of(std::string_view s, std::initializer_list<std::string_view> names) {
    for (auto n : names)
        if (s == n) return true;
    return false;
}

// "imull" and "imul", "shrq" and "shr": objdump adds an operand-size suffix where
// the operands do not imply one.
bool is(std::string_view mnemonic, std::initializer_list<std::string_view> names) {
    if (any_of(mnemonic, names)) return true;
    if (mnemonic.size() < 2 || !contains("bwlq", mnemonic.substr(mnemonic.size() - 1))) return false;
    return any_of(mnemonic.substr(0, mnemonic.size() - 1), names);
}

InstrClass classify_vector(std::string_view m) {
    if (contains(m, "div") || contains(m, "sqrt")) return InstrClass::fp_div;
    if (contains(m, "mul") || contains(m, "madd") || contains(m, "msub")) return InstrClass::vector_mul;
    if (contains(m, "cvt")) return InstrClass::other;
    return InstrClass::vector;
}

}  // namespace

InstrClass classify_instruction(std::string_view mnemonic, std::string_view operands) {
    // Prefixes objdump prints as words of their own ("rep stos", "notrack jmp", "cs nopw").
    for (;;) {
        auto space = mnemonic.find(' ');
        if (space == std::string_view::npos) break;
        std::string_view first = mnemonic.substr(0, space);
        if (!any_of(first, {"rep", "repz", "repe", "repnz", "repne", "lock", "bnd", "notrack", "cs", "ds", "ss", "es",
                            "fs", "gs", "data16", "addr32", "rex", "rex.W"}))
            break;
        if (starts_with(first, "rep")) return InstrClass::other;  // a string instruction, priced per iteration
        mnemonic.remove_prefix(space + 1);
    }
    // String instructions address %es:(%rdi); "movsbl" (sign-extend) does not.
    if (contains(operands, "%es:")) return InstrClass::other;
    if (contains(operands, "%xmm") || contains(operands, "%ymm") || contains(operands, "%zmm") ||
        (starts_with(mnemonic, "v") && mnemonic != "verr" && mnemonic != "verw"))
        return classify_vector(mnemonic);
    if (contains(operands, "%mm") || contains(operands, "%st") || starts_with(mnemonic, "f")) return InstrClass::other;
    if (is(mnemonic, {"div", "idiv"})) return InstrClass::div;
    if (is(mnemonic, {"mul", "imul", "mulx"})) return InstrClass::mul;
    if (mnemonic[0] == 'j' || is(mnemonic, {"call", "ret", "loop", "loope", "loopne", "jmp"}) ||
        starts_with(mnemonic, "call") || starts_with(mnemonic, "ret"))
        return InstrClass::branch;
    static const std::array<std::string_view, 14> kAluPrefixes{"mov", "cmov", "set", "nop", "bt", "sh", "sa",
                                                               "ro", "cmp", "bs", "push", "pop", "xchg", "lea"};
    for (auto p : kAluPrefixes)
        if (starts_with(mnemonic, p)) return InstrClass::alu;
    if (is(mnemonic, {"add", "sub", "and", "or", "xor", "not", "neg", "test", "inc", "dec", "adc", "sbb", "andn",
                      "bswap", "cltq", "cqto", "cltd", "cwtl", "cbtw", "cwtd", "tzcnt", "lzcnt", "popcnt", "endbr64",
                      "leave", "blsr", "blsi", "shlx", "shrx", "sarx", "rorx", "xadd"}))
        return InstrClass::alu;
    return InstrClass::other;
}

}  // namespace perflab
