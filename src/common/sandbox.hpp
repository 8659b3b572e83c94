// An OS sandbox for untrusted code, built from an existing tool (bubblewrap) and a
// seccomp filter (libseccomp), so that what a hand-in can reach is closed by
// construction rather than by recognising attacks:
//   - its own user namespace, uid/gid 65534 inside; when the caller is root the whole
//     sandbox also runs as 65534 outside (setpriv drops it before bwrap starts), so no
//     file owner check, rlimit exemption or signal permission of root applies to it;
//   - a new pid namespace (it sees only itself; when its init exits every process in it
//     is killed), no network (empty net namespace), new ipc/uts/cgroup namespaces;
//   - a private root: only the paths in the spec (read-only), one writable directory, a
//     size-limited /tmp and, for the compiler, the system's /usr;
//   - a seccomp filter per kind (seccomp_profile.hpp);
//   - --die-with-parent and --new-session.
// Cgroups are deliberately not used: on these machines they are v1 and the machine's.
// Limits on memory, CPU, file size and processes are rlimits the caller sets before exec.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace perflab {

enum class SandboxKind {
    compiler,     // gcc/ld/nm: may fork and exec and open the files it can see
    kernel_host,  // the statically linked kernel host: no open, no fork, threads only
    // The kernel host under valgrind (the machine model, docs/model.md): valgrind opens
    // its tool and writes its counts, so files may be opened; still no process.
    simulator,
};

struct SandboxSpec {
    SandboxKind kind = SandboxKind::kernel_host;
    std::vector<std::string> read_only;    // host paths visible read-only at the same path
    // Files visible read-only (and executable) at the same path, handed over rather
    // than reached: opened here with the caller's rights and given to bwrap on a
    // descriptor, so the sandbox's uid never walks the path to them (an install
    // directory it cannot enter, as /root or a 0700 home is, works as well).
    std::vector<std::string> read_only_files;
    std::string writable_dir;              // visible read-write at the same path ("" = none)
    std::uint64_t tmpfs_bytes = 16u << 20; // private /tmp, size-limited
    std::vector<int> keep_fds;             // fds (besides 0,1,2) the program inherits
    int info_fd = -1;                      // if >= 0: bwrap --info-fd (JSON with "child-pid", the pid outside)
    std::string cwd;                       // working directory inside ("" = writable_dir, else /tmp)
};

// One line: cause and remedy.
struct SandboxUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A ready command: argv to exec and the fds the exec must inherit (the seccomp BPF
// memfd), owned by this object and closed in its destructor. argv starts with bwrap,
// or with `setpriv --reuid 65534 ... bwrap` when the caller is root.
// The caller forks; in the child it closes every fd but 0, 1, 2, spec.keep_fds,
// spec.info_fd and inherited_fds (bwrap passes every open fd on to the program), sets
// rlimits, and execs argv (argv[0] is an absolute path). The inherited fds are created
// without FD_CLOEXEC and numbered >= 10, so dup2 onto 0..9 never clobbers them.
struct SandboxCommand {
    std::vector<std::string> argv;
    std::vector<int> inherited_fds;

    SandboxCommand() = default;
    ~SandboxCommand();
    SandboxCommand(SandboxCommand&& other) noexcept;
    SandboxCommand& operator=(SandboxCommand&& other) noexcept;
    SandboxCommand(const SandboxCommand&) = delete;
    SandboxCommand& operator=(const SandboxCommand&) = delete;
};

// Throws SandboxUnavailable when bwrap is missing or cannot create namespaces here,
// and std::invalid_argument for a spec that is not absolute paths.
SandboxCommand sandbox_command(const SandboxSpec& spec, const std::vector<std::string>& argv);

// nullopt when bwrap works here (probed once, then cached); else one line: cause and remedy.
std::optional<std::string> sandbox_unavailable_reason();

// The uid the sandbox runs as outside: 65534 when the caller is root, else the caller's.
uid_t sandbox_outside_uid();

// Makes `dir` writable by the sandbox (chown to 65534 when the caller is root; a no-op
// otherwise). Paths bound read-only need o+r (o+x on every directory on the way).
void sandbox_own(const std::string& dir);

// bwrap's init (the "child-pid" of --info-fd) runs the program as its only child: the
// program's pid outside, once it has started, or nullopt.
std::optional<pid_t> sandbox_program_pid(pid_t init_pid);

// For tests: where bwrap is looked for ($PERFLAB_BWRAP overrides, then /usr/bin/bwrap, /bin/bwrap).
std::string bwrap_path();

}  // namespace perflab
