// A kernel host's instructions by address, each with its class, from objdump (the
// host is static and linked at a fixed address, so callgrind's addresses are these).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "driver/evidence/cachegrind.hpp"
#include "instruction_classes.hpp"

namespace perflab {

struct Disassembly {
    std::map<std::uint64_t, InstrClass> instructions;
    // Where valgrind's client-request preamble (four rol of %rdi) begins: code that
    // talks to the simulator instead of being simulated.
    std::set<std::uint64_t> client_requests;
    std::map<std::string, int> functions;  // symbol name -> how many functions have it
};

// `objdump -d` of `executable`, parsed.
std::variant<Disassembly, SimulationError> disassemble(const std::string& executable);

// The same from objdump's text (-d --no-show-raw-insn -w), for tests.
Disassembly parse_disassembly(std::istream& objdump_text);

}  // namespace perflab
