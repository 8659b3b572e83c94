// What every family of checks under checks/ shares: how a finding is made, how a
// function is named, and how two functions' figures and walks are compared.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "driver/explain/explain.hpp"
#include "ids.hpp"

namespace perflab::checks {

// Deterministic simulated figures of the same code agree to well under 1%; the
// margins leave room for a wrapper's call and for PMU counting noise.
inline constexpr double kSameInstructions = 0.05;
inline constexpr double kSameMisses = 0.10;
// Timings of the same code on a shared VM: within this factor they are noise.
inline constexpr double kSameTiming = 1.25;
// The pinned CPU busier than this with other work before timing: a busy CPU.
inline constexpr double kBusyCpu = 0.10;

Finding make(FindingId id, Severity s, std::optional<Kernel> k, std::optional<std::string> variant, std::string title);

bool close(double a, double b, double tolerance);
std::string lower(std::string s);
// "rotate()" / "smooth()".
std::string graded_call(Kernel k);

std::optional<std::size_t> graded_index(const KernelResult& r);
const std::optional<AccessPattern>& pattern_of(const KernelEvidence& e, std::size_t i);
bool named_naive(const VariantResult& v);
// A variant by its function's name in the binary; the full description where the
// binary has no symbol for it (never the text cut at the first ':').
std::string fn_name(const KernelEvidence& e, std::size_t i);
bool is_naive_function(const KernelEvidence& e, std::size_t i);
// Whether variant i compiles to naive's loop: the oracle's instructions, misses and
// walk (timing within 5% where there are no figures). variant-equals-naive says so.
bool looks_naive(const KernelEvidence& e, std::size_t i);

// Equal simulated instruction and miss counts: deterministic, unlike a timing.
bool same_code(const CacheFigures& a, const CacheFigures& b);
// The same machine code, as far as the evidence can tell: equal instruction and
// miss counts (when there are figures) and timings within noise.
bool behaves_alike(const CacheFigures& a, const CacheFigures& b, std::optional<double> ratio);
// Equal totals are not the same loop: only the same steps and tile make it so.
bool same_walk(const std::optional<AccessPattern>& a, const std::optional<AccessPattern>& b);

void add_figures(Evidence& ev, const std::string& who, const CacheFigures& f);
void add_pattern(Evidence& ev, const std::string& who, const AccessPattern& p);
// Whether the loop body stores a block of several pixels that is not the tile itself.
bool unrolled_inside_tile(const AccessPattern& p);
// "8x8 tiles", "8x8 tiles (its loop body stores 4x4 blocks: an unroll inside the tile)".
std::string tile_words(const AccessPattern& p);
// "avg 1.00/px, mn 2.00/px": the callees called at least `at_least` times a pixel.
std::string callee_list(const AccessPattern& p, double at_least);

// The L1d the trace's findings reason with: the one --cache-geometry gave, which
// the traces simulated, else this machine's.
const std::optional<L1Geometry>& traced_l1(const ExplainData& data);
// The line bytes of that L1d (64 where none is known).
int traced_line(const ExplainData& data);
void add_line(Evidence& ev, const ExplainData& data);
// Whether variant i's misses are known and as few as memory-misses accepts.
bool misses_comparable(const ExplainData& data, const KernelEvidence& e, std::size_t i);
// The D1 misses per pixel a variant can get down to: the reference kernel's, or
// in the handout (no reference) one miss per line streamed.
double achievable_misses(const ExplainData& data, const KernelEvidence& e);
// "Close" and "the same" are said only when the figures are: within 20% of it.
bool misses_achieved(double mine, double achievable);

}  // namespace perflab::checks
