// The one fence for text a hand-in decides (compiler output, what its program
// prints, its descriptions and team names, its ids): every such text passes here
// before it becomes a reason, a CSV cell, a terminal line or a page. Nothing else
// makes it safe; a caller never tries to recognise an attack itself.
#pragma once

#include <string>
#include <string_view>

namespace perflab {

// `text` as valid UTF-8 in which no character acts on a terminal or reorders what
// is shown: C0 and C1 controls, DEL and the bidirectional overrides and isolates
// are written out as visible escapes (ESC as "\x1b", U+202E as "\u202e"; a
// backslash stays itself). Newlines and tabs are kept: for a multi-line body
// (a compiler log, a program's output).
std::string visible_text(std::string_view text);

// The same for one line (a reason, a progress line): newlines and tabs are made
// visible too, so the text cannot start a line of its own.
std::string visible_line(std::string_view text);

// One line as a spreadsheet cell (before CSV quoting): visible_line, and a cell
// that a spreadsheet would read as a formula or command (starting with = + - @,
// after any leading spaces) gets a leading apostrophe, which spreadsheets show as
// text and do not evaluate.
std::string spreadsheet_text(std::string_view text);

// spreadsheet_text quoted as an RFC 4180 CSV field when it needs quotes.
std::string csv_cell(std::string_view text);

}  // namespace perflab
