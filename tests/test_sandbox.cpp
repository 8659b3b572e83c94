// The sandbox through real programs: tests/fixtures/sandbox/probe.c, linked statically
// as the kernel host is, tries one thing per run and says how it went. Every attempt
// has a control that succeeds where it should, so a test cannot pass because the
// probe itself is broken.
#include <catch2/catch.hpp>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "harness.hpp"
#include "common/sandbox.hpp"
#include "common/seccomp_profile.hpp"
#include "common/subprocess.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using test::repo;

namespace {

constexpr int kKilledBySeccomp = 128 + SIGSYS;  // bwrap reports a signal as 128 + its number

// The probe, built once per test run.
const std::string& probe() {
    static const std::string path = [] {
        std::string dir = repo("build/tests/sandbox");
        fs::create_directories(dir);
        std::string out = dir + "/probe";
        auto r = test::sh(fmt::format("gcc -O2 -static -pthread {} -o {}.tmp && mv {}.tmp {}",
                                      repo("tests/fixtures/sandbox/probe.c"), out, out, out));
        INFO(r.err);
        REQUIRE(r.status == 0);
        return out;
    }();
    return path;
}

std::string probe_dir() { return fs::path(probe()).parent_path().string(); }

Finished run_in(SandboxSpec spec, std::vector<std::string> args, double wall_seconds = 20) {
    spec.read_only.push_back(probe_dir());
    args.insert(args.begin(), probe());
    SandboxCommand cmd = sandbox_command(spec, args);
    SpawnSpec s = command(cmd.argv, wall_seconds, 64 * 1024);
    s.inherit_fds = cmd.inherited_fds;
    s.inherit_fds.insert(s.inherit_fds.end(), spec.keep_fds.begin(), spec.keep_fds.end());
    s.limits.address_space_bytes = 1ull << 30;
    Finished f = spawn(s);
    UNSCOPED_INFO("probe " << fmt::format("{}", fmt::join(args, " ")) << " -> " << f.describe() << ": " << f.output);
    return f;
}

SandboxSpec kind(SandboxKind k) {
    SandboxSpec s;
    s.kind = k;
    return s;
}

// A directory the sandbox may write: handed to its uid.
std::string writable(const std::string& name) {
    std::string dir = test::scratch_dir(name);
    sandbox_own(dir);
    return dir;
}

// Processes whose command line holds `token`, anywhere on the machine.
int processes_with(const std::string& token) {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "cmdline", std::ios::binary);
        std::string cmdline((std::istreambuf_iterator<char>(in)), {});
        if (cmdline.find(token) != std::string::npos) ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("the sandbox runs a program as uid 65534 in every kind", "[sandbox]") {
    REQUIRE_FALSE(sandbox_unavailable_reason());
    for (auto k : {SandboxKind::kernel_host, SandboxKind::compiler}) {
        Finished f = run_in(kind(k), {"hello"});
        CHECK(f.exited_ok());
        CHECK_THAT(f.output, Catch::Contains("hello: ok uid=65534"));
    }
}

TEST_CASE("the sandbox sees only its binds: no /etc/shadow, no file beside them", "[sandbox]") {
    std::string outside = test::scratch_dir("sandbox-outside");
    test::write_file(outside + "/secret.txt", "instructor secret");
    std::string visible = test::scratch_dir("sandbox-visible");
    test::write_file(visible + "/note.txt", "visible note");
    chmod(visible.c_str(), 0755);
    for (auto k : {SandboxKind::compiler}) {
        SandboxSpec s = kind(k);
        s.read_only = {visible};
        CHECK_THAT(run_in(s, {"read", visible + "/note.txt"}).output, Catch::Contains("read: ok visible note"));
        CHECK_THAT(run_in(s, {"read", "/etc/shadow"}).output, Catch::Contains("read: failed (No such file"));
        CHECK_THAT(run_in(s, {"read", "/etc/passwd"}).output, Catch::Contains("read: failed (No such file"));
        CHECK_THAT(run_in(s, {"read", outside + "/secret.txt"}).output, Catch::Contains("read: failed (No such file"));
    }
}

TEST_CASE("the sandbox writes only to its writable directory and its /tmp", "[sandbox]") {
    std::string visible = test::scratch_dir("sandbox-ro");
    chmod(visible.c_str(), 0755);
    std::string rw = writable("sandbox-rw");
    SandboxSpec s = kind(SandboxKind::compiler);
    s.read_only = {visible};
    s.writable_dir = rw;
    CHECK_THAT(run_in(s, {"write", rw + "/out.txt"}).output, Catch::Contains("write: ok"));
    CHECK(test::read_file(rw + "/out.txt") == "pwned\n");
    // Created as the sandbox's uid outside too: never root's file.
    struct stat st;
    REQUIRE(stat((rw + "/out.txt").c_str(), &st) == 0);
    CHECK(st.st_uid == sandbox_outside_uid());
    CHECK_THAT(run_in(s, {"write", "/tmp/scratch.txt"}).output, Catch::Contains("write: ok"));
    CHECK_THAT(run_in(s, {"write", visible + "/out.txt"}).output, Catch::Contains("write: failed (Read-only"));
    CHECK_FALSE(fs::exists(visible + "/out.txt"));
    CHECK_THAT(run_in(s, {"write", "/usr/pwned"}).output, Catch::Contains("write: failed"));
    CHECK_FALSE(fs::exists("/usr/pwned"));
}

TEST_CASE("the sandbox's /tmp holds no more than its size", "[sandbox]") {
    SandboxSpec s = kind(SandboxKind::compiler);
    s.tmpfs_bytes = 4u << 20;
    Finished f = run_in(s, {"fill", "/tmp/big", "64"});
    CHECK(f.exited_ok());
    CHECK_THAT(f.output, Catch::Contains("fill: wrote 3 MiB") || Catch::Contains("fill: wrote 4 MiB"));
}

TEST_CASE("the kernel host opens nothing, even through a syscall hidden in another instruction", "[sandbox]") {
    std::string visible = test::scratch_dir("sandbox-hidden");
    test::write_file(visible + "/data.txt", "readable data");
    SandboxSpec compiler = kind(SandboxKind::compiler);
    compiler.read_only = {visible};
    // Control: where open is allowed the gadget works, so it really makes the call.
    CHECK_THAT(run_in(compiler, {"hidden-open", visible + "/data.txt"}).output,
               Catch::Contains("hidden-open: ok readable data"));
    SandboxSpec host = kind(SandboxKind::kernel_host);
    host.read_only = {visible};
    CHECK_THAT(run_in(host, {"read", visible + "/data.txt"}).output, Catch::Contains("read: failed (Operation not permitted)"));
    CHECK_THAT(run_in(host, {"hidden-open", visible + "/data.txt"}).output,
               Catch::Contains("hidden-open: failed (Operation not permitted)"));
}

TEST_CASE("the sandbox has no network", "[sandbox]") {
    // The compiler may make a socket, in a network namespace with nothing in it.
    CHECK_THAT(run_in(kind(SandboxKind::compiler), {"connect"}).output, Catch::Contains("failed"));
    CHECK(run_in(kind(SandboxKind::kernel_host), {"connect"}).exit_code == kKilledBySeccomp);
}

TEST_CASE("the kernel host may start neither a thread nor a process", "[sandbox]") {
    SandboxSpec s = kind(SandboxKind::kernel_host);
    Finished thread = run_in(s, {"thread"});
    CHECK(thread.exit_code == kKilledBySeccomp);
    CHECK_THAT(thread.output, !Catch::Contains("thread: ok"));
    Finished fork = run_in(s, {"fork"});
    CHECK(fork.exit_code == kKilledBySeccomp);
    CHECK_THAT(fork.output, !Catch::Contains("fork: ok"));
    // Control: the compiler must fork (cc1, as, ld).
    CHECK_THAT(run_in(kind(SandboxKind::compiler), {"fork"}).output, Catch::Contains("fork: ok"));
}

TEST_CASE("namespaces, sessions, other processes and the i386 ABI are out of reach", "[sandbox]") {
    // A kernel built without IA32 emulation (some of these VMs) faults on int 0x80
    // before seccomp sees it: there the sandbox need only keep it failing.
    const bool i386_abi = spawn(command({probe(), "int80"}, 20)).exited_ok();
    for (auto k : {SandboxKind::kernel_host, SandboxKind::compiler}) {
        for (const char* mode : {"setsid", "setns", "unshare", "int80"}) {
            INFO(mode << (i386_abi ? "" : " (this kernel has no i386 ABI)"));
            Finished f = run_in(kind(k), {mode});
            if (std::string(mode) == "int80" && !i386_abi)
                CHECK_THAT(f.output, !Catch::Contains("int80: ok"));
            else
                CHECK(f.exit_code == kKilledBySeccomp);
        }
    }
    CHECK(run_in(kind(SandboxKind::kernel_host), {"kill-init"}).exit_code == kKilledBySeccomp);
    CHECK(run_in(kind(SandboxKind::kernel_host), {"affinity"}).exit_code == kKilledBySeccomp);
}

TEST_CASE("the kernel host cannot sleep: it may wait only for the driver", "[sandbox]") {
    // Asleep between a reply and the next command, a host stretched each call's wall
    // time by the per-call limit at no cost to itself (docs/grader.md, Threat model).
    for (const char* mode : {"sleep", "timed-futex"}) {
        INFO(mode);
        CHECK(run_in(kind(SandboxKind::kernel_host), {mode, "1"}).exit_code == kKilledBySeccomp);
        CHECK(run_in(kind(SandboxKind::compiler), {mode, "1"}).exited_ok());  // control
    }
}

TEST_CASE("a double-forked daemon does not outlive the sandbox", "[sandbox]") {
    // The token marks the daemon's command line, so the test finds it anywhere.
    std::string token = fmt::format("perflab-daemon-token-{}", getpid());
    Finished quick = run_in(kind(SandboxKind::compiler), {"daemon", "go", token});
    CHECK(quick.exited_ok());
    CHECK_THAT(quick.output, Catch::Contains("daemon: ok"));
    CHECK(processes_with(token) == 0);
    // And when the caller gives up on a sandbox that never ends.
    Finished stuck = run_in(kind(SandboxKind::compiler), {"daemon", "stay", token}, 2);
    CHECK(stuck.timed_out);
    CHECK_THAT(stuck.output, Catch::Contains("daemon: ok"));
    usleep(200 * 1000);  // SIGKILL is delivered asynchronously; the namespace's teardown follows
    CHECK(processes_with(token) == 0);
}

// Zombie sandbox inits (pid 1 of their namespace) of the sandbox's uid left to the
// machine's pid 1, by pid: each counts against that uid's process limit until reaped.
std::set<int> orphaned_sandbox_inits() {
    std::set<int> pids;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "status");
        std::string line, state, ns_pid;
        long ppid = -1, uid = -1;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string key;
            fields >> key;
            if (key == "State:") fields >> state;
            if (key == "PPid:") fields >> ppid;
            if (key == "Uid:") fields >> uid;
            if (key == "NSpid:")
                for (std::string id; fields >> id;) ns_pid = id;
        }
        if (state == "Z" && ppid == 1 && uid == long(sandbox_outside_uid()) && ns_pid == "1")
            pids.insert(std::stoi(name));
    }
    return pids;
}

TEST_CASE("the driver reaps its hosts' sandboxes and leaves no zombie behind", "[sandbox][driver]") {
    // bwrap exits before reaping its init; unless the driver adopts and reaps it (or
    // the program is pid 1), every sandbox leaves one zombie to pid 1, which here
    // reaps them seconds later.
    const std::set<int> before = orphaned_sandbox_inits();
    for (int run = 0; run < 2; ++run) {
        auto r = test::run({repo("driver"), "--host", repo("build/solutions-host"), "--sandbox", "--dims", "64", "-g"});
        INFO(r.err);
        REQUIRE(r.status == 0);
    }
    int added = 0;
    for (int pid : orphaned_sandbox_inits()) added += before.count(pid) == 0;
    // Each run probes the sandbox once and starts three hosts (the student's, the
    // oracle's, the empty calls'): none may be left to pid 1.
    CHECK(added == 0);
}

TEST_CASE("--info-fd gives the sandbox's init, whose only child is the program", "[sandbox]") {
    int p[2];
    REQUIRE(pipe(p) == 0);
    SandboxSpec s = kind(SandboxKind::kernel_host);
    s.info_fd = p[1];
    s.keep_fds = {p[1]};
    s.read_only = {probe_dir()};
    SandboxCommand cmd = sandbox_command(s, {probe(), "stay", "3"});
    SpawnSpec spec = command(cmd.argv, 20);
    spec.inherit_fds = cmd.inherited_fds;
    spec.inherit_fds.push_back(p[1]);
    Finished f;
    std::thread runner([&] { f = spawn(spec); });  // no Catch macro off the main thread
    // bwrap writes the JSON as soon as the sandbox exists; the program is running then.
    std::string info;
    char buf[4096];
    for (ssize_t n; info.find('}') == std::string::npos && (n = read(p[0], buf, sizeof buf)) > 0;)
        info.append(buf, std::size_t(n));
    std::optional<pid_t> program;
    auto at = info.find("\"child-pid\":");
    if (at != std::string::npos) {
        pid_t init = pid_t(std::atoi(info.c_str() + at + 12));
        for (int i = 0; i < 100 && !program; ++i, usleep(20 * 1000)) program = sandbox_program_pid(init);
    }
    std::string cmdline;
    if (program) cmdline = test::read_file(fmt::format("/proc/{}/cmdline", *program));
    runner.join();
    close(p[0]);
    close(p[1]);
    INFO(info);
    CHECK(f.exited_ok());
    REQUIRE(program);
    CHECK_THAT(cmdline, Catch::Contains(probe()));
}

TEST_CASE("the seccomp programs build, and kill what only an attack needs", "[sandbox]") {
    for (auto k : {SandboxKind::kernel_host, SandboxKind::compiler}) {
        int fd = seccomp_program_fd(k);
        REQUIRE(fd >= 10);
        CHECK(lseek(fd, 0, SEEK_END) > 0);
        CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0);
        close(fd);
        auto killed = seccomp_killed_calls(k);
        for (const char* name : {"ptrace", "setns", "unshare", "mount", "bpf", "io_uring_setup", "process_vm_readv",
                                 "setsid", "setpgid"})
            CHECK(std::find(killed.begin(), killed.end(), name) != killed.end());
    }
}

TEST_CASE("without bwrap the sandbox says why in one line, with the remedy", "[sandbox]") {
    setenv("PERFLAB_BWRAP", "/nonexistent/bwrap", 1);
    auto why = sandbox_unavailable_reason();
    bool threw = false;
    try {
        sandbox_command(SandboxSpec{}, {"/bin/true"});
    } catch (const SandboxUnavailable&) {
        threw = true;
    }
    unsetenv("PERFLAB_BWRAP");
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("bubblewrap") && Catch::Contains("apt-get install bubblewrap"));
    CHECK(why->find('\n') == std::string::npos);
    CHECK(threw);
    CHECK_FALSE(sandbox_unavailable_reason());
}

namespace {

// What `seq 1 n` prints.
std::string numbered_lines(int n) {
    std::string out;
    for (int i = 1; i <= n; ++i) out += std::to_string(i) + "\n";
    return out;
}

}  // namespace

// perflab::spawn's options for callers that are not sandboxes: cachesim streaming a
// trace, the test harness keeping stdout and stderr apart.
TEST_CASE("spawn streams the report pipe to on_report, every byte in order", "[subprocess]") {
    const std::string expected = numbered_lines(200000);
    SpawnSpec spec = command({"/bin/bash", "-c", "seq 1 200000 >&3; echo done"}, 60);
    spec.report_pipe = true;
    std::string streamed;
    spec.on_report = [&](std::string_view chunk) { streamed.append(chunk); };
    Finished f = spawn(spec);
    REQUIRE(f.exited_ok());
    CHECK(f.output == "done\n");
    CHECK(f.report.empty());
    CHECK(streamed.size() == expected.size());
    CHECK(streamed == expected);
}

TEST_CASE("spawn with a read interval takes a line-per-write report in few chunks, every byte in order",
          "[subprocess]") {
    // bash's echo is one write() per line, as valgrind's lackey writes its trace.
    const int lines = 20000;
    const std::string expected = numbered_lines(lines);
    SpawnSpec spec = command({"/bin/bash", "-c", fmt::format("for ((i = 1; i <= {}; i++)); do echo $i >&3; done", lines)}, 60);
    spec.report_pipe = true;
    spec.read_interval_us = 2000;
    std::string streamed;
    int chunks = 0;
    spec.on_report = [&](std::string_view chunk) { streamed.append(chunk), ++chunks; };
    Finished f = spawn(spec);
    REQUIRE(f.exited_ok());
    CHECK(streamed == expected);
    // Woken for each write, the reader would take most lines one by one.
    CHECK(chunks < lines / 10);
    // More than a pipe's worth at once: read on without sleeping until it is drained.
    spec.argv = {"/bin/bash", "-c", "seq 1 400000 >&3"};
    streamed.clear();
    Finished big = spawn(spec);
    REQUIRE(big.exited_ok());
    CHECK(streamed == numbered_lines(400000));
}

TEST_CASE("spawn gives on_start the program's pid while it runs", "[subprocess]") {
    SpawnSpec spec = command({"/bin/bash", "-c", "echo $$"}, 60);
    pid_t started = -1;
    bool running = false;
    spec.on_start = [&](pid_t pid) {
        started = pid;
        running = fs::exists(fmt::format("/proc/{}", pid));  // not reaped before the output is read
    };
    Finished f = spawn(spec);
    REQUIRE(f.exited_ok());
    CHECK(running);
    CHECK(f.output == fmt::format("{}\n", started));
}

TEST_CASE("spawn kills the program when a callback throws", "[subprocess]") {
    SpawnSpec spec = command({"/bin/bash", "-c", "echo start >&3; exec sleep 600"}, 60);
    spec.report_pipe = true;
    pid_t started = -1;
    spec.on_start = [&](pid_t pid) { started = pid; };
    spec.on_report = [](std::string_view) { throw std::runtime_error("no use for this trace"); };
    CHECK_THROWS_WITH(spawn(spec), "no use for this trace");
    REQUIRE(started > 0);
    CHECK(kill(started, 0) == -1);  // reaped, not left sleeping
}

TEST_CASE("spawn keeps stderr apart only when asked", "[subprocess]") {
    SpawnSpec spec = command({"/bin/bash", "-c", "echo out; echo err >&2; echo out2"}, 60);
    Finished merged = spawn(spec);
    CHECK(merged.output == "out\nerr\nout2\n");
    CHECK(merged.error_output.empty());
    spec.separate_stderr = true;
    Finished apart = spawn(spec);
    CHECK(apart.output == "out\nout2\n");
    CHECK(apart.error_output == "err\n");
    spec.argv = {"/bin/bash", "-c", "head -c 5000 /dev/zero >&2"};
    spec.output_cap = 1000;
    Finished capped = spawn(spec);
    CHECK(capped.error_output.size() == 1000);
    CHECK(capped.error_output_truncated);
    CHECK_FALSE(capped.output_truncated);
}

TEST_CASE("spawn gives the program its input on stdin, /dev/null without one", "[subprocess]") {
    SpawnSpec spec = command({"/bin/cat"}, 60, 8 << 20);
    Finished none = spawn(spec);
    REQUIRE(none.exited_ok());
    CHECK(none.output.empty());
    // More than a pipe holds, so that nothing depends on the program reading it in time.
    std::string input;
    for (int i = 0; input.size() < (1 << 20); ++i) input += fmt::format("line {}\n", i);
    spec.input = input;
    Finished echoed = spawn(spec);
    REQUIRE(echoed.exited_ok());
    CHECK(echoed.output == input);
    // A program that leaves its input unread is no trouble for the caller.
    spec.argv = {"/bin/true"};
    CHECK(spawn(spec).exited_ok());
}
