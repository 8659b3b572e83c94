// Reading valgrind lackey traces (`valgrind --tool=lackey --trace-mem=yes`):
//   I  04016c0,3       an instruction fetch (address, length)
//    L 04222cac,4      a data load, S a store, M a modify (load then store)
// Valgrind's own commentary lines (==pid== ..., --pid-- ...) and blank lines are
// skipped; anything else is reported as malformed and skipped.
#pragma once

#include "cachesim.hpp"
#include "common/line_reader.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace perflab {

// Sizes beyond this come from no x86 instruction (xsave areas are a few KiB), so a
// larger one is a corrupt line rather than an access worth simulating byte by byte.
inline constexpr std::uint64_t max_trace_access_size = 1u << 16;

struct TraceLine {
    enum class Type { instruction, data, ignored, malformed };
    Type type = Type::ignored;
    AccessKind kind = AccessKind::load; // data lines only
    std::uint64_t addr = 0;
    std::uint64_t size = 0;
    const char* problem = nullptr; // malformed lines only: what was expected
};

TraceLine parse_lackey_line(std::string_view line);

class TraceSink {
public:
    virtual ~TraceSink() = default;
    virtual void instruction(std::uint64_t addr, std::uint64_t size) = 0;
    virtual void data(AccessKind kind, std::uint64_t addr, std::uint64_t size) = 0;
    // line is the offending text, cut short and with unprintable bytes replaced.
    virtual void malformed(std::uint64_t line_number, std::string_view line,
                           const char* problem) = 0;
};

// Parses a trace handed over in chunks of any size, as a running valgrind writes
// it; finish() once the trace has ended.
class LackeyTraceReader {
public:
    explicit LackeyTraceReader(TraceSink& sink);
    void feed(std::string_view chunk) { lines_.feed(chunk); }
    void finish() { lines_.finish(); }

private:
    struct Dispatch {
        TraceSink* sink;
        std::uint64_t line_number = 0;
        void operator()(std::string_view text, bool cut);
    };
    LineReader<Dispatch> lines_;
};

// Streams the trace from fd (a file, stdin) to its end in large reads. Throws
// std::system_error if a read fails.
void read_lackey_trace(int fd, TraceSink& sink);

// The letter the trace and the -v listing use for kind: L, S or M.
char access_letter(AccessKind kind);

} // namespace perflab
