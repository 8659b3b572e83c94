#include "gradebook.hpp"

#include <fmt/format.h>

#include "common/untrusted_text.hpp"
#include "tenths.hpp"

namespace perflab::grader {

std::string gradebook_csv(const std::vector<Record>& records) {
    auto speedup = [](const std::optional<double>& s) { return s ? fmt::format("{:.2f}", *s) : std::string(); };
    std::string out = "id,status,rotate_speedup,smooth_speedup,rotate_points,smooth_points,total,basis,reason\n";
    for (const auto& r : records)
        out += fmt::format("{},{},{},{},{:.1f},{:.1f},{:.1f},{},{}\n", csv_cell(r.id), status_id(r.status),
                           speedup(r.rotate_speedup), speedup(r.smooth_speedup), tenths(r.rotate_points),
                           tenths(r.smooth_points), sum_of_tenths(r.rotate_points, r.smooth_points), basis_name(r.basis),
                           csv_cell(r.reason));
    return out;
}

}  // namespace perflab::grader
