// Where in the source a traced instruction came from, and the expression there: a
// divide instruction's line, read through the host's debug information (kernels.c
// is built with -g) with addr2line, names the division a student wrote ("r / n"),
// which the instruction count alone cannot tell from index arithmetic ("k / dim").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perflab {

struct Division {
    std::string text;     // "r / n", as written
    std::string divisor;  // "n"
};

struct DivideSite {
    std::uint64_t addr = 0;
    double per_px = 0;
    std::string where;                 // "kernels.c:21"; empty without debug information
    std::vector<Division> divisions;  // written on that line; none found there: empty
};

// The divisions written on a line of C whose divisor is not a number literal (a
// literal divides by a multiply): "r / n", "sum.red / count".
std::vector<Division> divisions_on_line(const std::string& line);

// `sites` with `where` and `expression` filled from `executable`'s line table, the
// most executed first. Left as they are where addr2line or the source is missing.
std::vector<DivideSite> with_source(const std::string& executable, std::vector<DivideSite> sites);

}  // namespace perflab
