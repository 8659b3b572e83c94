#include "harness.hpp"

#include <catch2/catch.hpp>

#include "common/subprocess.hpp"
#include "lab_settings.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace perflab::test {
namespace fs = std::filesystem;

std::string repo(const std::string& relative) { return std::string(PERFLAB_ROOT) + "/" + relative; }

void skip(const std::string& reason) {
    std::printf("SKIPPED: %s: %s\n", Catch::getResultCapture().getCurrentTestName().c_str(), reason.c_str());
    std::fflush(stdout);
    WARN("SKIPPED: " << reason);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string scratch_dir(const std::string& name) {
    fs::path dir = fs::path(repo("build/tests/tmp")) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

CommandResult run(const std::vector<std::string>& argv, const std::string& input, const std::vector<std::string>& env) {
    // A test may start nothing at all: say so rather than see status 127.
    if (argv.empty() || !find_executable(argv[0])) throw std::runtime_error("cannot start " + (argv.empty() ? "" : argv[0]));
    // Tests keep all a program prints, and some legitimately run for minutes: the
    // wall clock only stops a hung one from holding the suite forever.
    SpawnSpec spec = command(argv, 3600, std::numeric_limits<std::size_t>::max());
    spec.env = env;
    spec.input = input;
    spec.separate_stderr = true;
    Finished f = spawn(spec);
    CommandResult r;
    r.status = f.timed_out ? 128 + SIGKILL : f.signal ? 128 + f.signal : f.exit_code;
    r.out = std::move(f.output);
    r.err = std::move(f.error_output);
    return r;
}

CommandResult sh(const std::string& command_line) { return run({"/bin/bash", "-c", command_line}); }

std::string build_driver(const std::string& kernels_source, const std::string& extra_kcflags) {
    fs::path src = kernels_source.front() == '/' ? fs::path(kernels_source) : fs::path(repo(kernels_source));
    std::string name = src.stem().string() + (extra_kcflags.empty() ? "" : "-flags" + std::to_string(std::hash<std::string>{}(extra_kcflags) % 10000));
    // A directory like a student's: the driver and the reference host (links to
    // the repository's: they are the same for every kernels file) and the kernel
    // host built from this one.
    std::string dir = repo("build/tests/drivers/" + name);
    if (fs::exists(dir) && !fs::is_directory(dir)) fs::remove(dir);  // a driver of the one-process days
    fs::create_directories(dir);
    std::string obj = dir + "/kernels.o";
    std::string kcflags = std::string(kLabKcflags) + " " + extra_kcflags;
    auto compile = run({"/bin/bash", "-c",
                        "gcc " + kcflags + " -I" + repo("kernels") + " -c '" + src.string() + "' -o '" + obj + "' && KCFLAGS='" +
                            kcflags + "' " + repo("mk/link-host.sh") + " '" + dir + "/kernel-host' " + repo("build/host-runtime.o") +
                            " '" + src.string() + "' '" + obj + "'"});
    if (compile.status != 0) throw std::runtime_error("building a kernel host from " + src.string() + " failed:\n" + compile.err);
    for (const char* exe : {"driver", "reference-host"}) {
        fs::remove(dir + "/" + exe);
        fs::create_hard_link(repo(exe), dir + "/" + exe);
    }
    return dir + "/driver";
}

std::string fixture_handin(const std::string& name) {
    static const std::string common = read_file(repo("tests/fixtures/handins/common.inc"));
    std::string text = read_file(repo("tests/fixtures/handins/" + name + ".c"));
    if (text.empty()) throw std::runtime_error("no fixture hand-in tests/fixtures/handins/" + name + ".c");
    auto at = text.find("HANDIN_COMMON\n");
    if (at != std::string::npos) text.replace(at, std::string("HANDIN_COMMON\n").size(), common);
    std::string path = repo("build/tests/handins/" + name + ".c");
    write_file(path, text);
    return path;
}

std::vector<std::string> lines_starting_with(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0) out.push_back(line);
    return out;
}

BusyLoops::BusyLoops(int per_cpu, std::vector<int> cpus) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (cpus.empty() && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    for (int cpu : cpus)
        for (int i = 0; i < per_cpu; ++i) {
            const pid_t pid = fork();
            if (pid == 0) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(cpu, &one);
                sched_setaffinity(0, sizeof one, &one);
                for (volatile unsigned long x = 0;;) x = x + 1;
            }
            if (pid > 0) pids_.push_back(pid);
        }
    // Long enough for the scheduler to have spread them and for load figures to show them.
    usleep(300000);
}

BusyLoops::~BusyLoops() {
    for (int pid : pids_) kill(pid, SIGKILL);
    for (int pid : pids_) waitpid(pid, nullptr, 0);
}

}  // namespace perflab::test
