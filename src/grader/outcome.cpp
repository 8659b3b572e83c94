#include "outcome.hpp"

#include <array>
#include <utility>

namespace perflab::grader {
namespace {

constexpr std::array<std::pair<Status, const char*>, 10> kIds{{
    {Status::ok, "ok"},
    {Status::compile_error, "compile-error"},
    {Status::forbidden, "forbidden"},
    {Status::wrong_result, "wrong-result"},
    {Status::crashed, "crashed"},
    {Status::timeout, "timeout"},
    {Status::out_of_memory, "out-of-memory"},
    {Status::no_variants, "no-variants"},
    {Status::internal_error, "internal-error"},
    {Status::unusable, "unusable"},
}};

}  // namespace

std::string status_id(Status s) {
    for (const auto& [status, id] : kIds)
        if (status == s) return id;
    return "internal-error";
}

std::optional<Status> parse_status(const std::string& id) {
    for (const auto& [status, name] : kIds)
        if (id == name) return status;
    return std::nullopt;
}

}  // namespace perflab::grader
