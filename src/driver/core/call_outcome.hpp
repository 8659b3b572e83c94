// How one call of a kernel in its host ended, in the student's terms, and the
// brackets (clock, counters) that the driver opens and closes around it.
#pragma once

#include <string>

namespace perflab {

struct CallOutcome {
    enum class Kind { returned, signalled, timed_out, exited, tampered } kind = Kind::returned;
    int signal = 0;
    int signal_code = 0;  // si_code: tells an integer division by zero from a float trap
    int exit_code = 0;    // a kernel that called exit()
    const void* fault_address = nullptr;  // in the host's address space
    unsigned timeout_seconds = 0;
    bool ok() const { return kind == Kind::returned; }
    std::string describe() const;  // "crashed with SIGSEGV (bad memory access at 0x...)", ...
};

std::string signal_name(int sig);  // "SIGSEGV"

// Something opened just before a call and closed just after it: the counters.
class CallBracket {
public:
    virtual ~CallBracket() = default;
    virtual void begin() = 0;
    virtual void end() = 0;
};

}  // namespace perflab
