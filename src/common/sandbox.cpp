#include "sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "seccomp_profile.hpp"

namespace perflab {
namespace {

constexpr uid_t kNobody = 65534;
constexpr const char* kSetpriv = "/usr/bin/setpriv";

bool exists(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
}

bool is_symlink(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string link_target(const std::string& path) {
    char buf[4096];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, std::size_t(n)) : "";
}

void require_absolute(const std::string& path, const char* what) {
    if (path.empty() || path[0] != '/')
        throw std::invalid_argument(fmt::format("sandbox {} '{}' is not an absolute path: pass an absolute path", what, path));
}

// The system's programs and libraries, read-only, mirroring merged-/usr symlinks
// (/lib -> usr/lib) or binding the directories where a host still has them.
void add_system(std::vector<std::string>& a) {
    a.insert(a.end(), {"--ro-bind", "/usr", "/usr"});
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        if (is_symlink(top)) a.insert(a.end(), {"--symlink", link_target(top), top});
        else if (exists(top)) a.insert(a.end(), {"--ro-bind", top, top});
    }
    // Only where the loader finds libraries: names of directories, no secret.
    a.insert(a.end(), {"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"});
}

// Everything but the command: the namespaces, the file system, the environment.
// `file_fds` are spec.read_only_files, opened, in their order.
std::vector<std::string> bwrap_options(const SandboxSpec& spec, int seccomp_fd, const std::vector<int>& file_fds) {
    std::vector<std::string> a{bwrap_path(),
                               "--unshare-all",  // user, pid, net, ipc, uts, cgroup
                               "--unshare-user",
                               "--disable-userns",  // no further user namespaces inside
                               "--uid", std::to_string(kNobody), "--gid", std::to_string(kNobody),
                               "--hostname", "sandbox",
                               "--die-with-parent",
                               "--new-session",  // no TIOCSTI into the caller's terminal
                               "--cap-drop", "ALL",
                               "--clearenv",
                               "--setenv", "PATH", "/usr/bin:/bin",
                               "--setenv", "LC_ALL", "C",
                               "--setenv", "HOME", "/tmp",
                               "--setenv", "TMPDIR", "/tmp"};
    switch (spec.kind) {
        case SandboxKind::compiler:
            // The program is the namespace's pid 1, so bwrap reaps it and no init of
            // bwrap's is left to the machine's pid 1 (which may take seconds; until
            // then it counts against the uid's process limit). The kernel host keeps
            // bwrap's init: the driver finds the host as its child, and adopts it.
            a.push_back("--as-pid-1");
            add_system(a);
            // /dev/null only: no /dev/zero or /dev/urandom to include, no /proc to reach fds through.
            a.insert(a.end(), {"--dev-bind", "/dev/null", "/dev/null"});
            break;
        case SandboxKind::kernel_host:
            break;  // statically linked and opens nothing: no system path at all
        case SandboxKind::simulator:
            add_system(a);  // valgrind and its tools
            // valgrind reads its own maps at start; the pid namespace's /proc shows only the sandbox.
            a.insert(a.end(), {"--proc", "/proc", "--dev-bind", "/dev/null", "/dev/null"});
            break;
    }
    a.insert(a.end(), {"--size", std::to_string(spec.tmpfs_bytes), "--tmpfs", "/tmp"});
    for (const auto& p : spec.read_only) {
        require_absolute(p, "read-only path");
        a.insert(a.end(), {"--ro-bind", p, p});
    }
    for (std::size_t i = 0; i < file_fds.size(); ++i)
        a.insert(a.end(), {"--perms", "0555", "--ro-bind-data", std::to_string(file_fds[i]), spec.read_only_files[i]});
    if (!spec.writable_dir.empty()) {
        require_absolute(spec.writable_dir, "writable directory");
        a.insert(a.end(), {"--bind", spec.writable_dir, spec.writable_dir});
    }
    std::string cwd = !spec.cwd.empty() ? spec.cwd : !spec.writable_dir.empty() ? spec.writable_dir : "/tmp";
    a.insert(a.end(), {"--chdir", cwd});
    if (spec.info_fd >= 0) a.insert(a.end(), {"--info-fd", std::to_string(spec.info_fd)});
    a.insert(a.end(), {"--seccomp", std::to_string(seccomp_fd)});
    // Root drops to nobody before bwrap starts: inside and outside the sandbox is
    // then an unprivileged uid, never root without capabilities.
    if (geteuid() == 0)
        a.insert(a.begin(), {kSetpriv, "--reuid", std::to_string(kNobody), "--regid", std::to_string(kNobody),
                             "--clear-groups", "--no-new-privs", "--"});
    return a;
}

SandboxCommand make_command(const SandboxSpec& spec, const std::vector<std::string>& argv) {
    if (argv.empty()) throw std::invalid_argument("sandbox_command: no program to run: pass argv with a program");
    SandboxCommand c;
    int fd = seccomp_program_fd(spec.kind);
    c.inherited_fds.push_back(fd);
    std::vector<int> file_fds;
    for (const auto& path : spec.read_only_files) {
        require_absolute(path, "read-only file");
        const int opened = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        // Numbered from 10 and inherited, as the seccomp program's descriptor is.
        const int handed = opened < 0 ? -1 : fcntl(opened, F_DUPFD, 10);
        const int error = errno;
        if (opened >= 0) close(opened);
        if (handed < 0)
            throw SandboxUnavailable(fmt::format("cannot open '{}' to hand it to the sandbox: {}", path, std::strerror(error)));
        c.inherited_fds.push_back(handed);
        file_fds.push_back(handed);
    }
    c.argv = bwrap_options(spec, fd, file_fds);
    c.argv.push_back("--");
    c.argv.insert(c.argv.end(), argv.begin(), argv.end());
    return c;
}

struct Ran {
    int status = -1;
    std::string err;
};

// A short helper run (the probe): stdout and stderr captured, ten seconds at most.
Ran run_quietly(const SandboxCommand& c) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return {-1, std::strerror(errno)};
    std::vector<char*> argv;
    for (const auto& s : c.argv) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) return {-1, std::strerror(errno)};
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        for (int fd = 3; fd < 1024; ++fd) {
            bool keep = false;
            for (int k : c.inherited_fds) keep |= (k == fd);
            if (!keep) close(fd);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    Ran r;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    char buf[4096];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        struct pollfd p{out[0], POLLIN, 0};
        if (left <= 0 || poll(&p, 1, int(left)) <= 0) break;
        ssize_t n = read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        if (r.err.size() < 16384) r.err.append(buf, std::size_t(n));
    }
    close(out[0]);
    kill(pid, SIGKILL);  // only if it is still running; harmless once it exited
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    return line.empty() ? "no message" : line;
}

std::string probe() {
    const std::string bwrap = bwrap_path();
    if (access(bwrap.c_str(), X_OK) != 0)
        return fmt::format("bubblewrap is not installed ({} missing), so untrusted code cannot be sandboxed: "
                           "apt-get install bubblewrap",
                           bwrap);
    if (geteuid() == 0 && access(kSetpriv, X_OK) != 0)
        return fmt::format("{} is missing, so root cannot drop to an unprivileged uid for the sandbox: "
                           "apt-get install util-linux",
                           kSetpriv);
    SandboxSpec spec;
    spec.kind = SandboxKind::compiler;
    Ran r = run_quietly(make_command(spec, {"/usr/bin/true"}));
    if (r.status == 0) return "";
    std::string why = first_line(r.err);
    if (why.find("namespace") != std::string::npos || why.find("uid map") != std::string::npos ||
        why.find("ermission") != std::string::npos || why.find("not permitted") != std::string::npos)
        return fmt::format("bwrap cannot create its namespaces here ({}): run the grader as root, or allow unprivileged "
                           "user namespaces (sysctl user.max_user_namespaces=15000, "
                           "kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0), and in a "
                           "container start it with --security-opt seccomp=unconfined --security-opt apparmor=unconfined "
                           "(see docs/grader.md)",
                           why);
    return fmt::format("a trial sandbox failed (bwrap: {}, status {}): see docs/grader.md, Deploying", why, r.status);
}

}  // namespace

SandboxCommand::~SandboxCommand() {
    for (int fd : inherited_fds) close(fd);
}

SandboxCommand::SandboxCommand(SandboxCommand&& other) noexcept
    : argv(std::move(other.argv)), inherited_fds(std::move(other.inherited_fds)) {
    other.inherited_fds.clear();
}

SandboxCommand& SandboxCommand::operator=(SandboxCommand&& other) noexcept {
    if (this != &other) {
        for (int fd : inherited_fds) close(fd);
        argv = std::move(other.argv);
        inherited_fds = std::move(other.inherited_fds);
        other.inherited_fds.clear();
    }
    return *this;
}

std::string bwrap_path() {
    if (const char* env = std::getenv("PERFLAB_BWRAP"); env && *env) return env;
    for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap"})
        if (access(p, X_OK) == 0) return p;
    return "/usr/bin/bwrap";
}

std::optional<std::string> sandbox_unavailable_reason() {
    // Probed once per bwrap path: a deployment does not change under a running grader.
    static std::mutex m;
    static std::map<std::string, std::string> cache;
    std::lock_guard<std::mutex> lock(m);
    const std::string key = bwrap_path();
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, probe()).first;
    if (it->second.empty()) return std::nullopt;
    return it->second;
}

SandboxCommand sandbox_command(const SandboxSpec& spec, const std::vector<std::string>& argv) {
    if (auto why = sandbox_unavailable_reason()) throw SandboxUnavailable(*why);
    return make_command(spec, argv);
}

uid_t sandbox_outside_uid() { return geteuid() == 0 ? kNobody : geteuid(); }

void sandbox_own(const std::string& dir) {
    if (geteuid() != 0) return;
    if (chown(dir.c_str(), kNobody, kNobody) != 0)
        throw std::runtime_error(fmt::format("cannot hand '{}' to the sandbox's uid {} ({}): use a local file system",
                                             dir, kNobody, std::strerror(errno)));
}

std::optional<pid_t> sandbox_program_pid(pid_t init_pid) {
    std::ifstream children(fmt::format("/proc/{}/task/{}/children", init_pid, init_pid));
    pid_t pid = 0;
    if (children >> pid && pid > 0) return pid;
    // Kernels without CONFIG_PROC_CHILDREN: the process whose parent is the init.
    DIR* d = opendir("/proc");
    if (!d) return std::nullopt;
    std::optional<pid_t> found;
    while (dirent* e = readdir(d)) {
        pid_t p = pid_t(std::atoi(e->d_name));
        if (p <= 0) continue;
        std::ifstream stat(fmt::format("/proc/{}/stat", p));
        std::string line;
        std::getline(stat, line);
        auto close_paren = line.rfind(')');
        if (close_paren == std::string::npos) continue;
        std::istringstream rest(line.substr(close_paren + 2));
        char state;
        pid_t ppid = 0;
        if (rest >> state >> ppid && ppid == init_pid) {
            found = p;
            break;
        }
    }
    closedir(d);
    return found;
}

}  // namespace perflab
