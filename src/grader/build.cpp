#include "build.hpp"

#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "static_checks.hpp"
#include "common/subprocess.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kCompilerOutputCap = 64 * 1024;

Finished run_toolchain(const std::vector<std::string>& argv, const std::string& cwd, double seconds) {
    SpawnSpec spec = command(argv, seconds, kCompilerOutputCap);
    spec.cwd = cwd;
    spec.env = {"LC_ALL=C"};
    spec.isolate_network = true;
    spec.limits.cpu_seconds = rlim_t(seconds) + 1;
    spec.limits.file_size_bytes = 512ull << 20;
    return spawn(spec);
}

std::vector<std::string> split_flags(const std::string& flags) {
    std::istringstream in(flags);
    std::vector<std::string> out;
    for (std::string f; in >> f;) out.push_back(f);
    return out;
}

std::vector<std::string> compile_command(const Layout& layout, const std::string& source, const std::string& object) {
    std::vector<std::string> argv{"gcc"};
    for (auto& f : split_flags(kStudentCFlags)) argv.push_back(f);
    argv.insert(argv.end(), {"-I" + layout.include_dir, "-c", source, "-o", object});
    return argv;
}

// Linking fails for a hand-in that lacks what the driver calls: name the missing piece.
std::string explain_link_failure(const std::string& log) {
    static const std::regex undefined(R"(undefined reference to `([^']+)')");
    std::smatch m;
    if (std::regex_search(log, m, undefined)) {
        std::string name = m[1];
        for (const char* required : {"team", "rotate", "smooth", "register_rotate_functions", "register_smooth_functions"})
            if (name == required)
                return fmt::format("kernels.c does not define '{}', which the driver needs: define it (not static)", name);
        return fmt::format("link error: undefined reference to '{}': define it or fix the spelling", name);
    }
    return "link error: " + first_error_line(log);
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write '{}': check the work directory has space", path));
}

Finished link(const Layout& layout, const std::string& work_dir, const std::string& source,
              const std::vector<std::string>& objects_and_flags, const std::string& out, double seconds) {
    std::vector<std::string> argv{layout.link_script, out, layout.host_runtime, source};
    argv.insert(argv.end(), objects_and_flags.begin(), objects_and_flags.end());
    SpawnSpec spec = command(argv, seconds, kCompilerOutputCap);
    spec.cwd = work_dir;
    spec.env = {"LC_ALL=C", std::string("KCFLAGS=") + kStudentCFlags};
    return spawn(spec);
}

}  // namespace

std::string first_error_line(const std::string& log) {
    std::istringstream in(log);
    std::string fallback;
    for (std::string line; std::getline(in, line);) {
        if (line.find("error:") != std::string::npos || line.find("undefined reference") != std::string::npos)
            return line;
        if (fallback.empty() && !line.empty()) fallback = line;
    }
    return fallback.empty() ? "no output" : fallback;
}

Built build_handin(const Layout& layout, const std::string& work_dir, const BuildSettings& settings) {
    Built b;
    const std::string source = work_dir + "/kernels.c", object = work_dir + "/kernels.o";
    Finished cc = run_toolchain(compile_command(layout, source, object), work_dir, settings.compile_seconds);
    b.log = cc.output;
    if (cc.timed_out || cc.signal == SIGXCPU) {
        b.failure = Outcome{Status::compile_error,
                            fmt::format("compiling kernels.c took over {:.0f} s: simplify the macros or templates",
                                        settings.compile_seconds)};
        return b;
    }
    if (!cc.exited_ok()) {
        std::string line = first_error_line(cc.output);
        // The compiler's path for the file is our temporary one; the student knows it as kernels.c.
        if (line.rfind(source, 0) == 0) line = "kernels.c" + line.substr(source.size());
        b.failure = Outcome{Status::compile_error, line};
        return b;
    }
    std::optional<std::string> bad = forbidden_call(object);
    if (!bad) bad = forbidden_instruction(object);
    if (!bad && settings.library_names) bad = interposed_symbol(object, *settings.library_names);
    if (bad) {
        b.failure = Outcome{Status::forbidden, *bad};
        return b;
    }

    write_text(work_dir + "/alloc_guard.c", alloc_guard_source());
    Finished guard = run_toolchain({"gcc", "-O2", "-c", "alloc_guard.c", "-o", "alloc_guard.o"}, work_dir, 60);
    if (!guard.exited_ok())
        throw std::runtime_error("cannot compile the grader's allocation guard: " + first_error_line(guard.output));
    std::vector<std::string> objects{object, work_dir + "/alloc_guard.o"};
    for (auto& f : alloc_guard_link_flags()) objects.push_back(f);
    Finished ld = link(layout, work_dir, source, objects, work_dir + "/kernel-host", settings.compile_seconds);
    b.log += ld.output;
    if (!ld.exited_ok()) {
        b.failure = Outcome{Status::compile_error, explain_link_failure(ld.output)};
        return b;
    }
    b.host = work_dir + "/kernel-host";
    return b;
}

std::string link_trusted_host(const Layout& layout, const std::string& work_dir, const std::string& kernels_text) {
    fs::create_directories(work_dir);
    const std::string source = work_dir + "/kernels.c", object = work_dir + "/kernels.o";
    write_text(source, kernels_text);
    Finished cc = run_toolchain(compile_command(layout, source, object), work_dir, 120);
    if (!cc.exited_ok()) throw std::runtime_error("cannot compile the calibration kernels: " + first_error_line(cc.output));
    Finished ld = link(layout, work_dir, source, {object}, work_dir + "/kernel-host", 120);
    if (!ld.exited_ok())
        throw std::runtime_error("cannot link a kernel host with " + layout.host_runtime + ": " + first_error_line(ld.output));
    return work_dir + "/kernel-host";
}

}  // namespace perflab::grader
