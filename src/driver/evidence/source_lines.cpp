#include "source_lines.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

#include "common/subprocess.hpp"

namespace perflab {
namespace {

constexpr double kAddr2lineSeconds = 30;

// A name with member access and subscripts: "n", "p.count", "w->n", "cnt[i]".
bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']';
}

// The operand ending just before `end` (exclusive): a parenthesised group or a
// name with member access and subscripts.
std::string operand_before(const std::string& s, std::size_t end) {
    std::size_t e = end;
    while (e > 0 && s[e - 1] == ' ') --e;
    std::size_t b = e;
    if (b > 0 && s[b - 1] == ')') {
        int depth = 0;
        do {
            --b;
            depth += s[b] == ')' ? 1 : s[b] == '(' ? -1 : 0;
        } while (b > 0 && depth > 0);
    } else {
        while (b > 0 && (name_char(s[b - 1]) || (b > 1 && s[b - 2] == '-' && s[b - 1] == '>')))
            b -= name_char(s[b - 1]) ? 1 : 2;
    }
    return s.substr(b, e - b);
}

std::string operand_after(const std::string& s, std::size_t begin) {
    std::size_t b = begin;
    while (b < s.size() && s[b] == ' ') ++b;
    std::size_t e = b;
    if (e < s.size() && s[e] == '(') {
        int depth = 0;
        do {
            depth += s[e] == '(' ? 1 : s[e] == ')' ? -1 : 0;
            ++e;
        } while (e < s.size() && depth > 0);
    } else {
        while (e < s.size() && (name_char(s[e]) || (e + 1 < s.size() && s[e] == '-' && s[e + 1] == '>')))
            e += name_char(s[e]) ? 1 : 2;
    }
    return s.substr(b, e - b);
}

bool number_literal(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '('), s.end());
    s.erase(std::remove(s.begin(), s.end(), ')'), s.end());
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; });
}

std::string without_comments(std::string line) {
    if (auto at = line.find("//"); at != std::string::npos) line.erase(at);
    for (std::size_t at; (at = line.find("/*")) != std::string::npos;) {
        const auto close = line.find("*/", at + 2);
        line.erase(at, close == std::string::npos ? std::string::npos : close + 2 - at);
    }
    return line;
}

std::string source_line(const std::string& file, long number) {
    std::ifstream in(file);
    std::string line;
    for (long n = 1; std::getline(in, line); ++n)
        if (n == number) return line;
    return "";
}

}  // namespace

std::vector<Division> divisions_on_line(const std::string& raw) {
    const std::string line = without_comments(raw);
    std::vector<Division> out;
    for (std::size_t at = line.find('/'); at != std::string::npos; at = line.find('/', at + 1)) {
        const bool assign = at + 1 < line.size() && line[at + 1] == '=';
        const std::string divisor = operand_after(line, at + (assign ? 2 : 1));
        const std::string dividend = operand_before(line, at);
        if (divisor.empty() || dividend.empty() || number_literal(divisor)) continue;
        out.push_back({fmt::format("{} {} {}", dividend, assign ? "/=" : "/", divisor), divisor});
    }
    return out;
}

std::vector<DivideSite> with_source(const std::string& executable, std::vector<DivideSite> sites) {
    std::sort(sites.begin(), sites.end(), [](auto& a, auto& b) { return a.per_px > b.per_px; });
    if (sites.empty()) return sites;
    auto addr2line = find_executable("addr2line");
    if (!addr2line) return sites;
    std::vector<std::string> argv{*addr2line, "-e", executable};
    for (const DivideSite& s : sites) argv.push_back(fmt::format("0x{:x}", s.addr));
    const Finished done = spawn(command(argv, kAddr2lineSeconds));
    if (!done.exited_ok()) return sites;
    std::istringstream out(done.output);
    std::map<std::string, std::string> lines;  // "file:line" -> its text, read once
    for (DivideSite& s : sites) {
        std::string where;
        if (!std::getline(out, where)) break;
        where = where.substr(0, where.find(" ("));  // " (discriminator 2)"
        const auto colon = where.rfind(':');
        if (colon == std::string::npos || where.compare(0, 2, "??") == 0) continue;
        long number = 0;
        try {
            number = std::stol(where.substr(colon + 1));
        } catch (const std::exception&) {
            continue;
        }
        const std::string file = where.substr(0, colon);
        auto [text, fresh] = lines.try_emplace(where);
        if (fresh) text->second = source_line(file, number);
        const auto slash = file.rfind('/');
        s.where = fmt::format("{}:{}", slash == std::string::npos ? file : file.substr(slash + 1), number);
        s.divisions = divisions_on_line(text->second);
    }
    return sites;
}

}  // namespace perflab
