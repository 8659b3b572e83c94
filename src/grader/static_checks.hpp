// What a compiled hand-in may call and execute. The score channel is safe only
// while student code cannot open, write or make system calls, so everything
// that could (and anything unknown) is refused before the code ever runs.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace perflab::grader {

// The compiled hand-in is more than the tools can read within their limits: the
// hand-in's failure (too much code), never the grader's.
struct UncheckableObject : std::runtime_error {
    using std::runtime_error::runtime_error;
};

bool symbol_allowed(const std::string& name);

// The first undefined symbol of `object` not on the allow list, as a reason
// ("calls fork, which ..."); nullopt when every call is allowed.
std::optional<std::string> forbidden_call(const std::string& object);

// The first syscall/sysenter/int 0x80/rdtsc/rdtscp/rdpmc in `objdump -d` text.
std::optional<std::string> forbidden_instruction_in(const std::string& disassembly);
std::optional<std::string> forbidden_instruction(const std::string& object);

// Valgrind's client-request preamble anywhere in `object`'s bytes (client_request.hpp):
// with it a kernel could change what the machine model counts.
std::optional<std::string> client_request(const std::string& object);

// A global the hand-in defines under the name of a function or variable of the
// libraries the driver runs with (`library_names`): it would replace the driver's
// own fwrite or malloc, a way around the score channel.
std::optional<std::string> interposed_symbol(const std::string& object, const std::set<std::string>& library_names);

// Every dynamic symbol the shared libraries of `program` export.
std::set<std::string> library_symbols(const std::string& program);

}  // namespace perflab::grader
