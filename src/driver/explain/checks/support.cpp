// The vocabulary shared by the checks: see support.hpp.
#include "support.hpp"
#include "timing.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perflab::checks {

bool close(double a, double b, double tolerance) {
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

Finding make(FindingId id, Severity s, std::optional<Kernel> k, std::optional<std::string> variant, std::string title) {
    Finding f;
    f.id = std::string(finding_kind(id).name);
    f.severity = s;
    f.kernel = k;
    f.variant = std::move(variant);
    f.title = std::move(title);
    return f;
}

std::optional<std::size_t> graded_index(const KernelResult& r) {
    for (std::size_t i = 0; i < r.variants.size(); ++i)
        if (r.variants[i].graded) return i;
    return std::nullopt;
}

bool same_code(const CacheFigures& a, const CacheFigures& b) {
    return a.instructions && b.instructions && a.d1() && b.d1() &&
           close(*a.instructions, *b.instructions, kSameInstructions) && close(*a.d1(), *b.d1(), kSameMisses);
}

bool behaves_alike(const CacheFigures& a, const CacheFigures& b, std::optional<double> ratio) {
    if (!ratio || *ratio > kSameTiming || *ratio < 1 / kSameTiming) return false;
    if (a.instructions && b.instructions && a.d1() && b.d1()) return same_code(a, b);
    return close(*ratio, 1.0, 0.05);  // timing alone: demand more
}

// Equal totals are not the same loop: a loop interchange, or any correct rotate at
// a size that fits L1, has the same instruction and miss counts but walks memory
// another way. Only the same steps and tile make it the same loop; without a trace
// on either side the totals are all there is.
bool same_walk(const std::optional<AccessPattern>& a, const std::optional<AccessPattern>& b) {
    return !a || !b ||
           (a->store.step == b->store.step && a->load.step == b->load.step && a->tile.rows == b->tile.rows &&
            a->tile.cols == b->tile.cols && a->walk.rows == b->walk.rows && a->walk.cols == b->walk.cols);
}

const std::optional<AccessPattern>& pattern_of(const KernelEvidence& e, std::size_t i) {
    static const std::optional<AccessPattern> none;
    return i < e.patterns.size() ? e.patterns[i] : none;
}

bool named_naive(const VariantResult& v) { return lower(short_name(v.name)).find("naive") != std::string::npos; }

std::string fn_name(const KernelEvidence& e, std::size_t i) {
    if (i < e.symbols.size() && !e.symbols[i].empty()) return e.symbols[i];
    return e.result.variants[i].name;
}

bool is_naive_function(const KernelEvidence& e, std::size_t i) {
    return named_naive(e.result.variants[i]) || lower(fn_name(e, i)).find("naive") != std::string::npos;
}

void add_figures(Evidence& ev, const std::string& who, const CacheFigures& f) {
    auto put = [&](const char* what, const std::optional<double>& v) {
        if (v) ev.emplace_back(who.empty() ? std::string(what) : who + " " + what, *v);
    };
    put("D1 read misses/px", f.d1_read);
    put("D1 write misses/px", f.d1_write);
    put("D1 misses/px", f.d1());
    put("LL misses/px", f.ll);
    put("instructions/px", f.instructions);
}

const std::optional<L1Geometry>& traced_l1(const ExplainData& data) { return data.given_l1 ? data.given_l1 : data.l1; }

int traced_line(const ExplainData& data) { return traced_l1(data) ? traced_l1(data)->line : 64; }

void add_line(Evidence& ev, const ExplainData& data) {
    ev.emplace_back("line bytes", double(traced_line(data)));
    ev.emplace_back("line from", traced_l1(data) ? traced_l1(data)->source : "assumed: no L1d size known");
}

// The L1d of the miss figures: the given one when they were simulated with
// --cache-geometry, else this machine's (the PMU's, or simulating it).
static const std::optional<L1Geometry>& figures_l1(const ExplainData& data) {
    return data.geometry_given ? traced_l1(data) : data.l1;
}

// Each pixel read once and written once, 6 bytes each, whole lines used.
static double streaming_misses(const std::optional<L1Geometry>& l1) {
    return 2.0 * double(sizeof(pixel)) / double(l1 ? l1->line : 64);
}

double achievable_misses(const ExplainData& data, const KernelEvidence& e) {
    return e.reference && e.reference->figures.d1() ? *e.reference->figures.d1() : streaming_misses(figures_l1(data));
}

bool misses_achieved(double mine, double achievable) {
    return mine <= std::max(1.2 * achievable, achievable + 0.01);
}

bool misses_comparable(const ExplainData& data, const KernelEvidence& e, std::size_t i) {
    const auto mine = e.figures[i].d1();
    return mine && e.naive.figures.d1() && misses_achieved(*mine, achievable_misses(data, e));
}

void add_pattern(Evidence& ev, const std::string& who, const AccessPattern& p) {
    const std::string pre = who.empty() ? "" : who + " ";
    ev.emplace_back(pre + "inner store step", describe_step(p.store.step, p.dim));
    ev.emplace_back(pre + "inner load step", describe_step(p.load.step, p.dim));
    ev.emplace_back(pre + "tile (dst rows x cols)",
                    p.tiled() ? fmt::format("{}x{}", p.tile.rows, p.tile.cols) : std::string("untiled"));
    if (unrolled_inside_tile(p))
        ev.emplace_back(pre + "unrolled body (dst rows x cols)",
                        fmt::format("{}x{}", p.loops->unroll.rows, p.loops->unroll.cols));
    ev.emplace_back(pre + "fetches per source line", p.src_fetches_per_line);
    ev.emplace_back(pre + "fetches per destination line", p.dst_fetches_per_line);
}

bool unrolled_inside_tile(const AccessPattern& p) {
    if (!p.loops || !p.tiled()) return false;
    const TileShape& u = p.loops->unroll;
    return u.rows * u.cols > 1 && (u.rows != p.tile.rows || u.cols != p.tile.cols);
}

std::string tile_words(const AccessPattern& p) {
    const std::string tiles = fmt::format("{}x{} tiles", p.tile.rows, p.tile.cols);
    if (!unrolled_inside_tile(p)) return tiles;
    return fmt::format("{} (its loop body stores {}x{} blocks: an unroll inside the tile)", tiles,
                       p.loops->unroll.rows, p.loops->unroll.cols);
}

std::string callee_list(const AccessPattern& p, double at_least) {
    std::vector<std::string> list;
    for (const auto& [callee, n] : p.callees)
        if (n >= at_least) list.push_back(fmt::format("{} {:.2f}/px", callee, n));
    return fmt::format("{}", fmt::join(list, ", "));
}

bool looks_naive(const KernelEvidence& e, std::size_t i) {
    // With simulated figures and traces the decision is the code's, not the
    // clock's: equal instructions, misses and order. Timing only without them.
    const CacheFigures& a = e.figures[i];
    const CacheFigures& b = e.naive.figures;
    const bool have_code =
        a.instructions && b.instructions && a.d1() && b.d1() && pattern_of(e, i) && e.naive.pattern;
    const auto ratio = time_ratio(e.result.variants[i], nullptr, e.dim);
    return (have_code ? same_code(a, b) : behaves_alike(a, b, ratio)) && same_walk(pattern_of(e, i), e.naive.pattern);
}

std::string graded_call(Kernel k) { return fmt::format("{}()", kernel_name(k)); }

}  // namespace perflab::checks
