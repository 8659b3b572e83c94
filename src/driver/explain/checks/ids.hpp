// Every finding --explain can raise, in one table: its id (stable: JSON, docs,
// handout), the file under checks/ that raises it, and whether it needs the
// repository's reference kernels (the handout's driver has none). docs/explain.md,
// the handout's README and the tests read this table; a check names its ids only
// through it, so an id cannot be raised without being listed here.
#pragma once

#include <array>
#include <string_view>

namespace perflab {

enum class FindingId {
    stale_build,
    graded_function,
    within_noise,
    variant_equals_naive,
    build_flags,
    memory_misses,
    work_per_pixel,
    tile_advice,
    access_order,
    tile_shape,
    at_ceiling,
    edited_baseline,
    unregistered_candidate,
    variable_divisor,
    calls_per_pixel,
    per_call_allocation,
    threads,
    failing_dims,
    measurement_quality,
};

struct FindingKind {
    FindingId id;
    std::string_view name;    // the id as JSON and the docs spell it
    std::string_view family;  // src/driver/explain/checks/<family>.cpp raises it
    bool needs_reference;     // only the repository's driver (with reference kernels) raises it
};

inline constexpr std::array kFindingKinds{
    FindingKind{FindingId::stale_build, "stale-build", "build", false},
    FindingKind{FindingId::graded_function, "graded-function", "graded", false},
    FindingKind{FindingId::within_noise, "within-noise", "graded", false},
    FindingKind{FindingId::variant_equals_naive, "variant-equals-naive", "naive", false},
    FindingKind{FindingId::build_flags, "build-flags", "build", false},
    FindingKind{FindingId::memory_misses, "memory-misses", "memory", false},
    FindingKind{FindingId::work_per_pixel, "work-per-pixel", "memory", false},
    FindingKind{FindingId::tile_advice, "tile-advice", "tile_advice", false},
    FindingKind{FindingId::access_order, "access-order", "walk", false},
    FindingKind{FindingId::tile_shape, "tile-shape", "walk", false},
    FindingKind{FindingId::at_ceiling, "at-ceiling", "ceiling", true},
    FindingKind{FindingId::edited_baseline, "edited-baseline", "naive", false},
    FindingKind{FindingId::unregistered_candidate, "unregistered-candidate", "unregistered", false},
    FindingKind{FindingId::variable_divisor, "variable-divisor", "code_facts", false},
    FindingKind{FindingId::calls_per_pixel, "calls-per-pixel", "code_facts", false},
    FindingKind{FindingId::per_call_allocation, "per-call-allocation", "code_facts", false},
    FindingKind{FindingId::threads, "threads", "code_facts", false},
    FindingKind{FindingId::failing_dims, "failing-dims", "failing_dims", false},
    FindingKind{FindingId::measurement_quality, "measurement-quality", "measurement", false},
};

constexpr const FindingKind& finding_kind(FindingId id) {
    for (const auto& k : kFindingKinds)
        if (k.id == id) return k;
    return kFindingKinds[0];  // unreachable: the table lists every enumerator (checked below)
}

constexpr bool every_id_listed_once() {
    for (std::size_t i = 0; i < kFindingKinds.size(); ++i)
        if (std::size_t(kFindingKinds[i].id) != i) return false;
    return true;
}
static_assert(every_id_listed_once(), "kFindingKinds lists FindingId's enumerators in order, each once");

}  // namespace perflab
