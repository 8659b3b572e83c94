// Calls a kernel so that a crash or an endless loop becomes a result instead of
// the end of the run: fatal signals and a watchdog alarm jump back here.
#pragma once

#include <span>
#include <string>

#include "defs.h"

namespace perflab {

struct CallOutcome {
    enum class Kind { returned, signalled, timed_out } kind = Kind::returned;
    int signal = 0;
    const void* fault_address = nullptr;
    unsigned timeout_seconds = 0;
    bool ok() const { return kind == Kind::returned; }
    std::string describe() const;  // "SIGSEGV at 0x...", "no return within 10 s"
};

// Runs fn(dim, src, dst). A SIGSEGV, SIGBUS, SIGFPE or SIGILL raised by the kernel,
// or `timeout_seconds` passing (0 = none), ends the call early. The kernel may
// leave its own state (a held lock, a leaked buffer) behind; the driver only
// needs to keep measuring the other variants.
std::string signal_name(int sig);  // "SIGSEGV"

// Something that brackets exactly the kernel call: the clock, the counters.
class CallBracket {
public:
    virtual ~CallBracket() = default;
    virtual void begin() = 0;
    virtual void end() = 0;
};

// Brackets are begun in order and ended in reverse, innermost closest to the call.
CallOutcome call_guarded(lab_test_func fn, int dim, pixel* src, pixel* dst, unsigned timeout_seconds,
                         std::span<CallBracket* const> brackets = {});

}  // namespace perflab
