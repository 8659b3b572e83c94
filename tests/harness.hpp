// Running the real binaries from tests, as a user would: commands with their
// stdout, stderr and status, and drivers built from fixture kernels files.
#pragma once

#include <string>
#include <vector>

namespace perflab::test {

struct CommandResult {
    int status = -1;  // exit status, or 128 + signal
    std::string out, err;
};

// Runs argv (no shell) with `input` on stdin; `env` entries NAME=VALUE are added.
// It goes through perflab::spawn as every program perflab starts does: in a process
// group of its own, which is killed once argv[0] has exited.
CommandResult run(const std::vector<std::string>& argv, const std::string& input = "",
                  const std::vector<std::string>& env = {});

// Runs a shell command line (for pipelines in tests that need one).
CommandResult sh(const std::string& command_line);

// Path under the repository.
std::string repo(const std::string& relative);

// A driver linked from `kernels_source` (relative to the repository or absolute)
// exactly as `make KERNELS=...` links one; cached by name under build/tests/drivers.
std::string build_driver(const std::string& kernels_source, const std::string& extra_kcflags = "");

// A fixture hand-in (tests/fixtures/handins/NAME.c) as a student would hand it in:
// one self-contained kernels.c, the case's own lines with the lines every case
// shares (common.inc) in place of HANDIN_COMMON, written under build/tests/handins.
std::string fixture_handin(const std::string& name);

// A fresh empty directory under build/tests/tmp, removed first if it exists.
std::string scratch_dir(const std::string& name);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

// A test that cannot run here says so instead of passing silently: skip() writes
// "SKIPPED: <test case>: <reason>" on stdout, the line mk/run-tests.sh counts apart
// from the passes, and the reason as a Catch2 warning. PERFLAB_SKIP(reason) skips
// and returns from the test case.
void skip(const std::string& reason);
#define PERFLAB_SKIP(reason)               \
    do {                                   \
        ::perflab::test::skip(reason);     \
        return;                            \
    } while (false)

// Busy loops while it lives, to test what a loaded machine does: `per_cpu` spinning
// processes pinned to each CPU of `cpus` (every CPU this process may use when empty).
// They are killed, all of them, when it goes.
class BusyLoops {
public:
    explicit BusyLoops(int per_cpu, std::vector<int> cpus = {});
    ~BusyLoops();
    BusyLoops(const BusyLoops&) = delete;
    BusyLoops& operator=(const BusyLoops&) = delete;

private:
    std::vector<int> pids_;
};

// Lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting_with(const std::string& text, const std::string& prefix);

}  // namespace perflab::test
