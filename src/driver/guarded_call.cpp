#include "guarded_call.hpp"

#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include <cstdlib>
#include <fmt/format.h>

namespace perflab {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};

sigjmp_buf g_return_point;
volatile sig_atomic_t g_armed = 0;
volatile sig_atomic_t g_signal = 0;
const void* volatile g_fault_address = nullptr;

void on_fatal_signal(int sig, siginfo_t* info, void*) {
    if (!g_armed) {
        // Not inside a kernel call: a bug of the driver itself; die as usual.
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    g_signal = sig;
    g_fault_address = info ? info->si_addr : nullptr;
    g_armed = 0;
    siglongjmp(g_return_point, 1);
}

void install_handlers_once() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    // A kernel that overruns its stack can only be caught on another stack.
    static char alt_stack[1 << 16];
    stack_t ss{};
    ss.ss_sp = alt_stack;
    ss.ss_size = sizeof alt_stack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
}

void set_alarm(unsigned seconds) {
    itimerval t{};
    t.it_value.tv_sec = seconds;
    setitimer(ITIMER_REAL, &t, nullptr);
}

}  // namespace

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

std::string CallOutcome::describe() const {
    switch (kind) {
        case Kind::returned: return "returned";
        case Kind::timed_out: return fmt::format("did not return within {} s", timeout_seconds);
        case Kind::signalled:
            if (signal == SIGSEGV || signal == SIGBUS)
                return fmt::format("crashed with {} (bad memory access at {})", signal_name(signal), fault_address);
            return fmt::format("crashed with {} ({})", signal_name(signal), strsignal(signal));
    }
    return "unknown outcome";
}

CallOutcome call_guarded(lab_test_func fn, int dim, pixel* src, pixel* dst, unsigned timeout_seconds,
                         std::span<CallBracket* const> brackets) {
    install_handlers_once();
    CallOutcome out;
    if (sigsetjmp(g_return_point, 1) == 0) {
        g_signal = 0;
        g_armed = 1;
        if (timeout_seconds) set_alarm(timeout_seconds);
        for (auto* b : brackets) b->begin();
        fn(dim, src, dst);
        for (auto it = brackets.rbegin(); it != brackets.rend(); ++it) (*it)->end();
        g_armed = 0;
        if (timeout_seconds) set_alarm(0);
        return out;
    }
    set_alarm(0);
    if (g_signal == SIGALRM) {
        out.kind = CallOutcome::Kind::timed_out;
        out.timeout_seconds = timeout_seconds;
    } else {
        out.kind = CallOutcome::Kind::signalled;
        out.signal = g_signal;
        out.fault_address = g_fault_address;
    }
    return out;
}

}  // namespace perflab
