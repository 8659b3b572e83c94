#include "call_outcome.hpp"

#include <signal.h>
#include <string.h>

#include <fmt/format.h>

namespace perflab {

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

std::string CallOutcome::describe() const {
    switch (kind) {
        case Kind::returned: return "returned";
        case Kind::timed_out: return fmt::format("did not return within {} s", timeout_seconds);
        case Kind::exited: return fmt::format("ended the program (exit status {}) instead of returning", exit_code);
        case Kind::tampered:
            return "changed the kernel host's own memory or what it reports about a call (the reads it makes "
                   "before every call), or ran between calls: kernels.c may only compute dst, while it is called";
        case Kind::signalled:
            if (signal == SIGSEGV || signal == SIGBUS)
                return fmt::format("crashed with {} (bad memory access at {})", signal_name(signal), fault_address);
            // "Floating point exception" misleads: in these kernels it is nearly always an int / 0.
            if (signal == SIGFPE && signal_code == FPE_INTDIV)
                return fmt::format("crashed with {} (integer division by zero)", signal_name(signal));
            if (signal == SIGFPE && signal_code == FPE_INTOVF)
                return fmt::format("crashed with {} (integer overflow in a division)", signal_name(signal));
            return fmt::format("crashed with {} ({})", signal_name(signal), strsignal(signal));
    }
    return "unknown outcome";
}

}  // namespace perflab
