#include "lackey_trace.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>
#include <vector>

namespace perflab {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// A table rather than range tests: address parsing is most of a trace's cost.
constexpr auto hex_values = [] {
    std::array<std::int8_t, 256> values{};
    values.fill(-1);
    for (int d = 0; d < 10; ++d) values['0' + d] = static_cast<std::int8_t>(d);
    for (int d = 0; d < 6; ++d) {
        values['a' + d] = static_cast<std::int8_t>(10 + d);
        values['A' + d] = static_cast<std::int8_t>(10 + d);
    }
    return values;
}();

int hex_digit(char c) { return hex_values[static_cast<unsigned char>(c)]; }

TraceLine malformed(const char* problem) {
    TraceLine line;
    line.type = TraceLine::Type::malformed;
    line.problem = problem;
    return line;
}

std::string printable_excerpt(std::string_view line) {
    constexpr std::size_t max_shown = 60;
    std::string shown(line.substr(0, max_shown));
    for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    if (line.size() > max_shown) shown += "...";
    return shown;
}

} // namespace

char access_letter(AccessKind kind) {
    switch (kind) {
    case AccessKind::load: return 'L';
    case AccessKind::store: return 'S';
    case AccessKind::modify: return 'M';
    }
    return '?';
}

TraceLine parse_lackey_line(std::string_view text) {
    while (!text.empty() && (is_blank(text.back()) || text.back() == '\r')) text.remove_suffix(1);
    std::size_t i = 0;
    while (i < text.size() && is_blank(text[i])) ++i;
    if (i == text.size() || text.substr(i, 2) == "==" || text.substr(i, 2) == "--") return {};

    TraceLine line;
    switch (text[i]) {
    case 'I': line.type = TraceLine::Type::instruction; break;
    case 'L': line.type = TraceLine::Type::data; line.kind = AccessKind::load; break;
    case 'S': line.type = TraceLine::Type::data; line.kind = AccessKind::store; break;
    case 'M': line.type = TraceLine::Type::data; line.kind = AccessKind::modify; break;
    default: return malformed("expected I, L, S or M");
    }
    ++i;
    if (i == text.size() || !is_blank(text[i])) return malformed("expected a space after the access type");
    while (i < text.size() && is_blank(text[i])) ++i;

    if (text.substr(i, 2) == "0x" || text.substr(i, 2) == "0X") i += 2;
    std::size_t digits = 0;
    for (int d; i < text.size() && (d = hex_digit(text[i])) >= 0; ++i, ++digits) {
        if (line.addr >> 60) return malformed("address wider than 64 bits");
        line.addr = line.addr << 4 | static_cast<unsigned>(d);
    }
    if (digits == 0) return malformed("expected a hexadecimal address");
    if (i == text.size() || text[i] != ',') return malformed("expected ',size' after the address");
    ++i;

    digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        line.size = line.size * 10 + static_cast<unsigned>(text[i] - '0');
        if (line.size > max_trace_access_size) return malformed("size larger than 65536 bytes");
    }
    if (digits == 0) return malformed("expected a decimal size after the comma");
    if (line.size == 0) return malformed("size must be at least 1 byte");
    if (i != text.size()) return malformed("unexpected text after the size");
    if (line.addr + (line.size - 1) < line.addr)
        return malformed("access runs past the top of the address space");
    return line;
}

// 1 MiB bounds a line: no lackey line comes near it, a file with no newlines would.
LackeyTraceReader::LackeyTraceReader(TraceSink& sink) : lines_(std::size_t{1} << 20, Dispatch{&sink}) {}

void LackeyTraceReader::Dispatch::operator()(std::string_view text, bool cut) {
    ++line_number;
    if (cut) {
        sink->malformed(line_number, printable_excerpt(text), "line longer than 1 MiB");
        return;
    }
    const TraceLine line = parse_lackey_line(text);
    switch (line.type) {
    case TraceLine::Type::instruction: sink->instruction(line.addr, line.size); break;
    case TraceLine::Type::data: sink->data(line.kind, line.addr, line.size); break;
    case TraceLine::Type::malformed:
        sink->malformed(line_number, printable_excerpt(text), line.problem);
        break;
    case TraceLine::Type::ignored: break;
    }
}

void read_lackey_trace(int fd, TraceSink& sink) {
    // Large reads keep the per-line cost to parsing.
    std::vector<char> buffer(std::size_t{1} << 20);
    LackeyTraceReader reader(sink);
    for (;;) {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got < 0) {
            if (errno == EINTR) continue;
            throw std::system_error(errno, std::generic_category(), "reading the trace");
        }
        if (got == 0) break;
        reader.feed({buffer.data(), static_cast<std::size_t>(got)});
    }
    reader.finish();
}

} // namespace perflab
