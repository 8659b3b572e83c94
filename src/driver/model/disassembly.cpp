#include "disassembly.hpp"

#include <fmt/format.h>
#include <sstream>

#include "common/subprocess.hpp"

namespace perflab {
namespace {

constexpr double kObjdumpSeconds = 60;
// A static host lists some 10 MB; a hand-in that generates far more code is refused.
constexpr std::size_t kObjdumpBytes = std::size_t{512} << 20;

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

}  // namespace

Disassembly parse_disassembly(std::istream& in) {
    Disassembly d;
    std::string line;
    // The preamble: rol $0x3, $0xd, $0x3d, $0x33 of %rdi, in that order.
    static constexpr std::string_view kPreamble[] = {"$0x3,%rdi", "$0xd,%rdi", "$0x3d,%rdi", "$0x33,%rdi"};
    std::uint64_t preamble_start = 0;
    int preamble_seen = 0;
    while (std::getline(in, line)) {
        // "0000000000401000 <_init>:" starts a function.
        if (line.size() > 3 && line.back() == ':' && line.find(" <") != std::string::npos) {
            auto open = line.find(" <");
            ++d.functions[line.substr(open + 2, line.size() - open - 4)];
            continue;
        }
        // "  401000:\tsub    $0x8,%rsp"
        auto colon = line.find(":\t");
        if (colon == std::string::npos) continue;
        std::uint64_t address = 0;
        try {
            address = std::stoull(line.substr(0, colon), nullptr, 16);
        } catch (const std::exception&) {
            continue;
        }
        std::string_view text = trim(std::string_view(line).substr(colon + 2));
        // The mnemonic (with its prefixes) is separated from the operands by spaces:
        // objdump pads it to a column; "rep stos %rax,..." has single spaces inside.
        std::string_view mnemonic = text, operands;
        auto gap = text.find("  ");
        if (gap == std::string_view::npos) gap = text.rfind(' ');
        if (gap != std::string_view::npos) {
            mnemonic = trim(text.substr(0, gap));
            operands = trim(text.substr(gap));
        }
        if (auto hash = operands.find('#'); hash != std::string_view::npos) operands = trim(operands.substr(0, hash));
        d.instructions[address] = classify_instruction(mnemonic, operands);
        if (mnemonic.substr(0, 3) == "rol" && operands == kPreamble[preamble_seen]) {
            if (preamble_seen == 0) preamble_start = address;
            if (++preamble_seen == 4) {
                d.client_requests.insert(preamble_start);
                preamble_seen = 0;
            }
        } else {
            preamble_seen = 0;
        }
    }
    return d;
}

std::variant<Disassembly, SimulationError> disassemble(const std::string& executable) {
    auto objdump = find_executable("objdump");
    if (!objdump) return SimulationError{"objdump is not installed: apt-get install binutils"};
    SpawnSpec spec = command({*objdump, "-d", "--no-show-raw-insn", "-w", executable}, kObjdumpSeconds, kObjdumpBytes);
    spec.separate_stderr = true;
    Finished f = spawn(spec);
    if (!f.exited_ok() || f.output_truncated)
        return SimulationError{fmt::format("objdump cannot list '{}' ({}): rebuild it with make", executable,
                                           f.output_truncated ? "too much code" : f.describe())};
    std::istringstream in(f.output);
    return parse_disassembly(in);
}

}  // namespace perflab
