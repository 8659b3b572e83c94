#include "untrusted_text.hpp"

#include <fmt/format.h>

#include "utf8.hpp"

namespace perflab {
namespace {

// The code point of the UTF-8 character at the start of `s` (valid: valid_utf8's
// output) and its length.
std::pair<char32_t, std::size_t> decode(std::string_view s) {
    const auto b = [&](std::size_t i) { return char32_t(static_cast<unsigned char>(s[i])); };
    if (b(0) < 0x80) return {b(0), 1};
    if (b(0) < 0xE0) return {(b(0) & 0x1F) << 6 | (b(1) & 0x3F), 2};
    if (b(0) < 0xF0) return {(b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F), 3};
    return {(b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F), 4};
}

// Characters that act rather than show: on a terminal (C0, DEL, C1: ESC starts
// every escape sequence, and 0x9B is a one-byte CSI), or on the order in which a
// page, an editor or a terminal lays text out (the bidi embeddings, overrides and
// isolates, and the marks that make an invisible reordering).
bool acts(char32_t c, bool keep_layout) {
    if (keep_layout && (c == '\n' || c == '\t')) return false;
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0x200E || c == 0x200F || c == 0x061C;
}

std::string visible(std::string_view text, bool keep_layout) {
    const std::string valid = valid_utf8(text);
    std::string out;
    out.reserve(valid.size());
    for (std::string_view rest = valid; !rest.empty();) {
        const auto [c, n] = decode(rest);
        if (!acts(c, keep_layout)) out.append(rest.substr(0, n));
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c < 0x100) out += fmt::format("\\x{:02x}", unsigned(c));
        else out += fmt::format("\\u{:04x}", unsigned(c));
        rest.remove_prefix(n);
    }
    return out;
}

}  // namespace

std::string visible_text(std::string_view text) { return visible(text, true); }

std::string visible_line(std::string_view text) { return visible(text, false); }

std::string spreadsheet_text(std::string_view text) {
    std::string line = visible_line(text);
    // Spreadsheets skip leading spaces before they look for a formula's sign; a tab or
    // a carriage return cannot lead any more (visible_line wrote them out).
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && std::string_view("=+-@").find(line[first]) != std::string_view::npos)
        line.insert(0, "'");
    return line;
}

std::string csv_cell(std::string_view text) {
    const std::string cell = spreadsheet_text(text);
    if (cell.find_first_of(",\"") == std::string::npos) return cell;
    std::string quoted = "\"";
    for (char c : cell) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

}  // namespace perflab
