#include "record.hpp"

#include <stdexcept>

namespace perflab::grader {

using nlohmann::json;

namespace {
json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> number_or_null(const json& v) { return v.is_null() ? std::nullopt : std::optional(v.get<double>()); }
}  // namespace

json to_json(const Record& r) {
    return {{"id", r.id},
            {"status", status_id(r.status)},
            {"reason", r.reason},
            {"rotate_speedup", optional_number(r.rotate_speedup)},
            {"smooth_speedup", optional_number(r.smooth_speedup)},
            {"rotate_points", r.rotate_points},
            {"smooth_points", r.smooth_points},
            {"total", r.total},
            {"trials", r.trials},
            {"basis", basis_name(r.basis)},
            {"baseline", r.baseline},
            {"node", r.node},
            {"handin_sha256", r.handin_sha256},
            {"graded_at_ns", r.graded_at_ns}};
}

Record record_from_json(const json& j) {
    try {
        Record r;
        r.id = j.at("id").get<std::string>();
        auto status = parse_status(j.at("status").get<std::string>());
        if (!status) throw std::runtime_error("unknown status");
        r.status = *status;
        r.reason = j.at("reason").get<std::string>();
        r.rotate_speedup = number_or_null(j.at("rotate_speedup"));
        r.smooth_speedup = number_or_null(j.at("smooth_speedup"));
        r.rotate_points = j.at("rotate_points").get<double>();
        r.smooth_points = j.at("smooth_points").get<double>();
        r.total = j.at("total").get<double>();
        r.trials = j.at("trials").get<int>();
        r.baseline = j.at("baseline").get<std::string>();
        if (j.contains("basis")) {
            const std::string basis = j.at("basis").get<std::string>();
            if (basis != basis_name(Basis::timing) && basis != basis_name(Basis::model)) throw std::runtime_error("unknown basis");
            r.basis = basis == basis_name(Basis::model) ? Basis::model : Basis::timing;
        }
        // Records written before batches ran on several nodes have no node.
        if (j.contains("node")) r.node = j.at("node").get<std::string>();
        if (j.contains("handin_sha256")) r.handin_sha256 = j.at("handin_sha256").get<std::string>();
        if (j.contains("graded_at_ns")) r.graded_at_ns = j.at("graded_at_ns").get<std::int64_t>();
        return r;
    } catch (const json::exception& e) {
        throw std::runtime_error(e.what());
    }
}

}  // namespace perflab::grader
