// The two kernels of the lab and what distinguishes them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "defs.h"

namespace perflab {

enum class Kernel { rotate, smooth };

inline constexpr std::array<Kernel, 2> kAllKernels{Kernel::rotate, Kernel::smooth};

constexpr std::string_view kernel_name(Kernel k) { return k == Kernel::rotate ? "rotate" : "smooth"; }
// "Rotate" / "Smooth", as the classic report capitalises them.
constexpr std::string_view kernel_title(Kernel k) { return k == Kernel::rotate ? "Rotate" : "Smooth"; }
// The letter of the classic -d/-f function files.
constexpr char kernel_letter(Kernel k) { return k == Kernel::rotate ? 'R' : 'S'; }

std::optional<Kernel> parse_kernel(std::string_view name);

// The driver's own naive version: the correctness oracle and the same-run baseline.
lab_test_func oracle_for(Kernel k);

}  // namespace perflab
