// What the text report prints for one kernel with one variant, for the tests that
// read its rows.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "driver/report/report.hpp"

namespace perflab::test {

inline std::string text_report(const KernelResult& k, const VariantResult& v) {
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    REQUIRE(out);
    TextReporter report(out, {});
    report.kernel_started(k);
    report.variant_done(k, v);
    std::fclose(out);
    std::string printed(text, size);
    std::free(text);
    return printed;
}

}  // namespace perflab::test
