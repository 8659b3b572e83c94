// Every internal link of the user documentation resolves: README.md, docs/*.md and
// the handout's README link to files that exist and to headings those files have
// (anchors as GitHub makes them from a heading's text).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace fs = std::filesystem;
using perflab::test::read_file;
using perflab::test::repo;

namespace {

// GitHub's anchor for a heading: lower case, each space a hyphen, every character
// that is not a letter, digit, hyphen or underscore dropped (so `--clock cycles`
// becomes `--clock-cycles` and "a–b" becomes "ab"); a repeated heading gets -1, -2...
std::string slug(const std::string& heading) {
    std::string s;
    for (unsigned char c : heading) {
        if (std::isalnum(c) || c == '-' || c == '_') s += static_cast<char>(std::tolower(c));
        else if (c == ' ') s += '-';
        else if (c >= 0x80) {}  // a multi-byte character: punctuation in these docs (– × ≥ ...)
    }
    return s;
}

// The text with fenced code blocks and inline code spans blanked out: a link or a
// heading inside code is not one.
std::vector<std::string> prose_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    bool fenced = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("```", 0) == 0) {
            fenced = !fenced;
            lines.emplace_back();
            continue;
        }
        if (fenced) {
            lines.emplace_back();
            continue;
        }
        std::string out;
        bool code = false;
        for (char c : line) {
            if (c == '`') code = !code;
            out += code || c == '`' ? ' ' : c;
        }
        lines.push_back(out);
    }
    return lines;
}

std::set<std::string> anchors(const std::string& text) {
    std::set<std::string> found;
    std::map<std::string, int> seen;
    std::istringstream in(text);
    bool fenced = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("```", 0) == 0) fenced = !fenced;
        if (fenced || line.empty() || line[0] != '#') continue;
        const auto start = line.find_first_not_of('#');
        if (start == std::string::npos || line[start] != ' ') continue;
        const std::string base = slug(line.substr(start + 1));
        const int n = seen[base]++;
        found.insert(n == 0 ? base : base + "-" + std::to_string(n));
    }
    return found;
}

// The links of `text` (a file at `path`) that do not resolve, one line each.
std::vector<std::string> broken_links(const fs::path& path, const std::string& text) {
    static const std::regex link(R"(\]\(([^)\s]+)\))");
    std::vector<std::string> broken;
    int number = 0;
    for (const std::string& line : prose_lines(text)) {
        ++number;
        for (std::sregex_iterator m(line.begin(), line.end(), link), end; m != end; ++m) {
            const std::string target = (*m)[1];
            if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 ||
                target.rfind("mailto:", 0) == 0)
                continue;
            const auto hash = target.find('#');
            const std::string file = target.substr(0, hash);
            const fs::path resolved = file.empty() ? path : path.parent_path() / file;
            const std::string where = path.filename().string() + ":" + std::to_string(number) + ": " + target;
            if (!fs::exists(resolved)) {
                broken.push_back(where + " (no such file)");
                continue;
            }
            if (hash == std::string::npos) continue;
            if (resolved.extension() != ".md") {
                broken.push_back(where + " (an anchor into a file that is not Markdown)");
                continue;
            }
            const std::string resolved_text = file.empty() ? text : read_file(resolved.string());
            if (!anchors(resolved_text).count(target.substr(hash + 1)))
                broken.push_back(where + " (no such heading)");
        }
    }
    return broken;
}

std::vector<fs::path> documentation() {
    std::vector<fs::path> files{repo("README.md"), repo("handout/README")};
    for (const auto& entry : fs::directory_iterator(repo("docs")))
        if (entry.path().extension() == ".md") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST_CASE("every link and anchor in README.md, docs/*.md and the handout's README resolves", "[docs]") {
    int links = 0;
    for (const fs::path& file : documentation()) {
        const std::string text = read_file(file.string());
        for (const std::string& line : prose_lines(text))
            for (auto at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) ++links;
        for (const std::string& problem : broken_links(file, text)) FAIL_CHECK(problem);
    }
    CHECK(links > 50);  // the README and docs link to each other: the scan found them
}

TEST_CASE("the link checker finds a missing file, a missing heading and a self-anchor", "[docs]") {
    const std::string dir = perflab::test::scratch_dir("docs-links");
    perflab::test::write_file(dir + "/other.md", "# Other page\n\n## `--clock cycles`\n\n## Same\n\n## Same\n");
    const std::string page =
        "# Page\n\n## How – it works\n\n"
        "[ok](other.md) [ok](other.md#--clock-cycles) [ok](other.md#same-1) [ok](#how--it-works)\n"
        "[gone](missing.md) [no heading](other.md#timing) [self](#timing) [web](https://example.org/x#y)\n"
        "`[in code](missing.md)`\n```\n[fenced](missing.md)\n```\n";
    perflab::test::write_file(dir + "/page.md", page);
    const auto broken = broken_links(dir + "/page.md", page);
    REQUIRE(broken.size() == 3);
    CHECK(broken[0] == "page.md:6: missing.md (no such file)");
    CHECK(broken[1] == "page.md:6: other.md#timing (no such heading)");
    CHECK(broken[2] == "page.md:6: #timing (no such heading)");
}
