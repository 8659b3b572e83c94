// How a hand-in ended: exactly one status, and one line the student can act on.
#pragma once

#include <optional>
#include <string>

namespace perflab::grader {

enum class Status {
    ok,
    compile_error,
    forbidden,
    wrong_result,
    crashed,
    timeout,
    out_of_memory,
    no_variants,
    internal_error,
    unusable,  // no hand-in to grade: no kernels.c, two of them, an unsafe archive
};

std::string status_id(Status s);  // "compile-error", ...
std::optional<Status> parse_status(const std::string& id);

struct Outcome {
    Status status = Status::ok;
    std::string reason;
};

}  // namespace perflab::grader
