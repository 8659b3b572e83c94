// The seccomp filters of the sandbox, built with libseccomp and exported as BPF for
// `bwrap --seccomp FD`. Three verdicts:
//   ALLOW  what the kind needs;
//   KILL   (the whole process, SIGSYS) calls that only an attack makes: sockets, ptrace,
//          other processes' memory, namespaces, mounts, bpf, perf, io_uring, process
//          creation in the kernel host, sessions and process groups, modules, keys,
//          clocks. Killing ends the run unclean, so it scores nothing, and the grader
//          can say what was attempted;
//   ERRNO  (EPERM) everything else in the kernel host: a call glibc may probe (open of a
//          sysfs file, dup, pipe) fails and glibc falls back; clone3 gets ENOSYS so
//          glibc's pthread_create falls back to clone, whose flags can be checked.
// Non-native ABIs (i386 `int $0x80`, x32) are killed: the filter is for x86-64 only.
// A `syscall` instruction hidden in another instruction's bytes meets the same filter:
// seccomp judges the system call at kernel entry, whatever code made it.
#pragma once

#include <string>
#include <vector>

#include "sandbox.hpp"

namespace perflab {

// A memfd (no FD_CLOEXEC, number >= 10, offset 0) holding the kind's BPF program.
// The caller owns it. Throws SandboxUnavailable when libseccomp refuses a rule.
int seccomp_program_fd(SandboxKind kind);

// The calls the kind's filter kills, by name (for documentation and tests).
std::vector<std::string> seccomp_killed_calls(SandboxKind kind);

}  // namespace perflab
