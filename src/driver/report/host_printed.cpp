#include "host_printed.hpp"

#include <fmt/format.h>

namespace perflab {
namespace {

constexpr std::string_view kHeading = "--- kernels.c printed (its own output, not the driver's";

}  // namespace

std::string host_printed_text(const std::optional<HostPrinted>& printed) {
    if (!printed) return "";
    std::string out(kHeading);
    out += printed->cut ? fmt::format("; the last part of {} bytes) ---\n", printed->bytes) : std::string(") ---\n");
    std::size_t at = 0;
    while (at < printed->text.size()) {
        std::size_t end = printed->text.find('\n', at);
        if (end == std::string::npos) end = printed->text.size();
        out += "| " + printed->text.substr(at, end - at) + "\n";
        at = end + 1;
    }
    return out + "--- end of what kernels.c printed ---\n";
}

std::string_view before_host_printed(std::string_view driver_output) {
    // The block always starts a line; each of its own lines starts "| ", so no line
    // kernels.c printed can start another.
    const std::size_t at = driver_output.find("\n" + std::string(kHeading));
    if (at != std::string_view::npos) return driver_output.substr(0, at + 1);
    return driver_output.substr(0, driver_output.starts_with(kHeading) ? 0 : driver_output.size());
}

nlohmann::json host_printed_json(const std::optional<HostPrinted>& printed) {
    if (!printed) return nullptr;
    return {{"text", printed->text}, {"bytes", printed->bytes}, {"cut", printed->cut}};
}

}  // namespace perflab
