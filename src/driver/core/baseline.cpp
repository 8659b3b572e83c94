#include "baseline.hpp"

#include <fmt/format.h>
#include <stdexcept>
#include "common/toml_file.hpp"

namespace perflab {

BaselineFile parse_baseline(const std::string& toml_text, const std::string& source_name) {
    toml::table root = parse_toml(toml_text, source_name,
                                  "a baseline file is TOML as ./driver --calibrate > FILE writes it");
    BaselineFile b;
    b.source = source_name;
    for (Kernel k : kAllKernels) {
        auto& out = k == Kernel::rotate ? b.rotate : b.smooth;
        const toml::table* cpes = root[kernel_name(k)]["cpe"].as_table();
        if (!cpes) continue;
        for (const auto& [key, node] : *cpes) {
            int dim = 0;
            try {
                dim = std::stoi(std::string(key.str()));
            } catch (const std::exception&) {
            }
            auto cpe = node.value<double>();
            if (dim <= 0 || !cpe || *cpe <= 0)
                throw std::runtime_error(fmt::format("{}: [{}.cpe] entries must be DIM = positive CPE, not '{}'",
                                                     source_name, kernel_name(k), std::string(key.str())));
            out[dim] = *cpe;
        }
    }
    if (b.rotate.empty() && b.smooth.empty())
        throw std::runtime_error(fmt::format("{}: no [rotate.cpe] or [smooth.cpe] table; write one with "
                                             "./driver --calibrate > FILE",
                                             source_name));
    return b;
}

BaselineFile load_baseline(const std::string& path) { return parse_baseline(read_text_file(path, "baseline"), path); }

std::string baseline_to_toml(const BaselineFile& baseline, const std::string& comment) {
    std::string out = fmt::format("# perflab baseline CPEs (the naive oracle). {}\n", comment);
    for (Kernel k : kAllKernels) {
        // A kernel left out of the calibration (--kernel) gets no table: an empty one
        // would read as a kernel measured and found to have no dimensions.
        if (baseline.of(k).empty()) continue;
        out += fmt::format("\n[{}.cpe]\n", kernel_name(k));
        for (const auto& [dim, cpe] : baseline.of(k)) out += fmt::format("{} = {:.4f}\n", dim, cpe);
    }
    return out;
}

}  // namespace perflab
