#include "closest_name.hpp"

#include <algorithm>

namespace perflab {
namespace {

// Optimal string alignment distance: Levenshtein with swaps of adjacent letters.
std::size_t edits(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& names) {
    std::optional<std::string> best;
    std::size_t best_edits = 3;
    for (const auto& name : names) {
        const std::size_t n = edits(typed, name);
        if (n < best_edits && 2 * n < name.size()) best = name, best_edits = n;
    }
    return best;
}

}  // namespace perflab
