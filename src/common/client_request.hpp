// Valgrind's client requests: a program signals the simulator it runs under with a
// fixed instruction sequence (valgrind.h's "special instruction preamble", four
// rotates of %rdi that together change nothing). With one a kernel could turn the
// counting off, reset it, or run a function natively, unsimulated: what the machine
// model counts would no longer be what it ran. The grader refuses such code before
// it runs and the model refuses a host that contains it (docs/model.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perflab {

// Where the preamble's bytes first occur in `bytes`, if they do: in code, in data,
// in an instruction's immediate, wherever a jump could land.
std::optional<std::size_t> find_client_request(std::string_view bytes);

// The same for a file's bytes; throws std::runtime_error when it cannot be read.
std::optional<std::size_t> find_client_request_in_file(const std::string& path);

}  // namespace perflab
