// The entry point of each family of checks, one file each under checks/ (the ids
// each raises are in ids.hpp); explain_checks.cpp runs them in the order a TA
// looks. Pure functions of ExplainData: they append findings, nothing else.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "driver/explain/explain.hpp"

namespace perflab::checks {

// build.cpp
void stale_build(const BuildState& b, std::vector<Finding>& out);
void build_flags(const BuildInfo& b, std::vector<Finding>& out);
// graded.cpp: returns the registered variant rotate()/smooth() behaves like, if any.
std::optional<std::size_t> graded_function(const KernelEvidence& e, std::vector<Finding>& out);
// naive.cpp: equals_naive returns the variants it called out, whose other findings would repeat it.
std::vector<std::size_t> equals_naive(const KernelEvidence& e, const std::vector<std::size_t>& skip,
                                      std::vector<Finding>& out);
void edited_baseline(const KernelEvidence& e, std::vector<Finding>& out);
// memory.cpp
void memory_misses(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
void work_per_pixel(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
// walk.cpp
void access_order(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
void tile_shape(const ExplainData& data, const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
// tile_advice.cpp
void tile_advice(const ExplainData& data, const KernelEvidence& e, std::vector<Finding>& out);
// ceiling.cpp
void at_ceiling(const KernelEvidence& e, std::vector<Finding>& out);
// code_facts.cpp
void code_facts(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
void allocation_facts(const KernelEvidence& e, std::size_t i, std::vector<Finding>& out);
// unregistered.cpp
void unregistered(const KernelEvidence& e, std::optional<std::string> why_uncalled, std::vector<Finding>& out);
// failing_dims.cpp
void failing_dims(const KernelEvidence& e, std::vector<Finding>& out);
// measurement.cpp
void measurement_quality(const ExplainData& data, std::vector<Finding>& out);
// On a busy CPU, every finding that judges a timing says so.
void busy_timings(const ExplainData& data, std::vector<Finding>& out);

}  // namespace perflab::checks
