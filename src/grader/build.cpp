#include "build.hpp"

#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "static_checks.hpp"
#include "sandboxed.hpp"
#include "trusted_sources.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kCompilerOutputCap = 64 * 1024;

// What the toolchain may see besides the system: the grader's own pieces, copied into
// a directory of their own, so that nothing else of the installation (a baseline or
// policy an instructor keeps beside the grader) is ever visible in a sandbox.
struct Toolkit {
    std::string dir, include_dir, link_script, host_runtime;
};

Toolkit prepare_toolkit(const Layout& layout, const HandinDirs& dirs) {
    Toolkit t;
    t.dir = (fs::path(dirs.root).parent_path() / "toolkit").string();
    t.include_dir = t.dir + "/include";
    fs::create_directories(t.include_dir);
    auto copy = [](const std::string& from, const std::string& to) {
        std::error_code ec;
        fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
        if (ec) throw std::runtime_error(fmt::format("cannot copy '{}' for the sandbox ({}): check the work directory", from, ec.message()));
        fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                fs::perms::others_read | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec);
    };
    copy(layout.include_dir + "/defs.h", t.include_dir + "/defs.h");
    t.link_script = t.dir + "/link-host.sh";
    copy(layout.link_script, t.link_script);
    // link-host.sh finds the export list and the code aligner beside itself.
    for (const char* helper : {"host-exports", "align-text.sh"})
        copy((fs::path(layout.link_script).parent_path() / helper).string(), t.dir + "/" + helper);
    t.host_runtime = t.dir + "/host-runtime.o";
    copy(layout.host_runtime, t.host_runtime);
    for (const auto& d : {t.dir, t.include_dir}) fs::permissions(d, fs::perms(0755));
    return t;
}

// The compiler sandbox: the hand-in's sources and the toolkit read-only, the build
// directory writable, the system's /usr, a small /tmp; no network, no other file.
Finished run_toolchain(const std::vector<std::string>& argv, const HandinDirs& dirs, const Toolkit& toolkit,
                       double seconds, std::uint64_t memory_bytes) {
    SandboxSpec box;
    box.kind = SandboxKind::compiler;
    box.read_only = {dirs.src, toolkit.dir};
    box.writable_dir = dirs.build;
    box.tmpfs_bytes = 256ull << 20;  // cc1's .s files and the link script's scratch
    SpawnSpec spec = command(argv, seconds, kCompilerOutputCap);
    spec.limits.cpu_seconds = rlim_t(seconds) + 1;
    spec.limits.address_space_bytes = memory_bytes;
    spec.limits.file_size_bytes = 256ull << 20;
    spec.limits.processes = 512;  // counted per uid: gcc, cc1, as, collect2, ld
    return spawn_sandboxed(box, spec);
}

std::vector<std::string> split_flags(const std::string& flags) {
    std::istringstream in(flags);
    std::vector<std::string> out;
    for (std::string f; in >> f;) out.push_back(f);
    return out;
}

std::vector<std::string> compile_command(const Toolkit& toolkit, const std::string& source, const std::string& object) {
    std::vector<std::string> argv{"/usr/bin/gcc"};
    for (auto& f : split_flags(kStudentCFlags)) argv.push_back(f);
    argv.insert(argv.end(), {"-I" + toolkit.include_dir, "-c", source, "-o", object});
    return argv;
}

// Linking fails for a hand-in that lacks what the driver calls: name the missing piece.
std::string explain_link_failure(const std::string& log) {
    // mk/link-host.sh names a missing piece of the C surface itself.
    static const std::regex missing(R"([^\n]*does not define '[^']+', which the driver needs[^\n]*)");
    std::smatch said;
    if (std::regex_search(log, said, missing)) return said.str();
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

Finished link(const HandinDirs& dirs, const Toolkit& toolkit, const std::string& source,
              const std::vector<std::string>& objects_and_flags, const std::string& out, double seconds,
              std::uint64_t memory_bytes) {
    // The sandbox clears the environment: the flags reach the script through env.
    std::vector<std::string> argv{"/usr/bin/env", std::string("KCFLAGS=") + kStudentCFlags, "/bin/bash",
                                  toolkit.link_script, out, toolkit.host_runtime, source};
    argv.insert(argv.end(), objects_and_flags.begin(), objects_and_flags.end());
    return run_toolchain(argv, dirs, toolkit, seconds, memory_bytes);
}

// The compiler's verdict when it was stopped rather than finished.
std::optional<Outcome> stopped(const Finished& f, const BuildSettings& settings) {
    if (f.timed_out || f.signal == SIGXCPU)
        return Outcome{Status::compile_error, fmt::format("compiling kernels.c took over {:.0f} s: simplify the macros or "
                                                          "what the file includes", settings.compile_seconds)};
    if (f.signal == SIGXFSZ)
        return Outcome{Status::compile_error, "the compiler's output grew past its file-size limit: include or embed less"};
    if (f.signal == SIGSYS)
        return Outcome{Status::compile_error, "the compiler was stopped for a system call the sandbox forbids: "
                                              "remove what the file asks the toolchain to do beyond compiling"};
    if (f.output_truncated && !f.exited_ok())
        return Outcome{Status::compile_error, "kernels.c: " + first_error_line(f.output) +
                                                  " (output cut at 64 KiB: fix the first error)"};
    return std::nullopt;
}

}  // namespace

std::string first_error_line(const std::string& log) {
    std::istringstream in(log);
    std::string fallback;
    for (std::string line; std::getline(in, line);) {
        // gcc says "error:", the assembler (an .incbin of a missing file) "Error:".
        if (line.find("error:") != std::string::npos || line.find("Error:") != std::string::npos ||
            line.find("undefined reference") != std::string::npos)
            return line;
        if (fallback.empty() && !line.empty()) fallback = line;
    }
    return fallback.empty() ? "no output" : fallback;
}

Built build_handin(const Layout& layout, const HandinDirs& dirs, const BuildSettings& settings) {
    Built b;
    const Toolkit toolkit = prepare_toolkit(layout, dirs);
    const std::string source = dirs.src + "/kernels.c", object = dirs.build + "/kernels.o";
    Finished cc = run_toolchain(compile_command(toolkit, source, object), dirs, toolkit, settings.compile_seconds,
                                settings.memory_bytes);
    b.log = cc.output;
    if (auto why = stopped(cc, settings)) {
        b.failure = why;
        return b;
    }
    if (!cc.exited_ok()) {
        std::string line = first_error_line(cc.output);
        // The compiler's path for the file is our temporary one; the student knows it as kernels.c.
        if (line.rfind(source, 0) == 0) line = "kernels.c" + line.substr(source.size());
        if (line.find("ory exhausted") != std::string::npos || line.find("out of memory") != std::string::npos ||
            line.find("annot allocate") != std::string::npos)
            line += fmt::format(" (the compiler may use {} MiB: include or generate less)", settings.memory_bytes >> 20);
        b.failure = Outcome{Status::compile_error, line};
        return b;
    }
    std::optional<std::string> bad;
    try {
        bad = forbidden_call(object);
        if (!bad) bad = forbidden_instruction(object);
        if (!bad) bad = client_request(object);
        if (!bad && settings.library_names) bad = interposed_symbol(object, *settings.library_names);
    } catch (const UncheckableObject& e) {
        b.failure = Outcome{Status::compile_error, e.what()};
        return b;
    }
    if (bad) {
        b.failure = Outcome{Status::forbidden, *bad};
        return b;
    }

    write_text(dirs.src + "/alloc_guard.c", alloc_guard_source());
    Finished guard = run_toolchain({"/usr/bin/gcc", "-O2", "-c", dirs.src + "/alloc_guard.c", "-o", dirs.build + "/alloc_guard.o"},
                                   dirs, toolkit, 60, settings.memory_bytes);
    if (!guard.exited_ok())
        throw std::runtime_error("cannot compile the grader's allocation guard: " + first_error_line(guard.output));
    std::vector<std::string> objects{object, dirs.build + "/alloc_guard.o"};
    for (auto& f : alloc_guard_link_flags()) objects.push_back(f);
    Finished ld = link(dirs, toolkit, source, objects, dirs.build + "/kernel-host", settings.compile_seconds,
                       settings.memory_bytes);
    b.log += ld.output;
    if (auto why = stopped(ld, settings)) {
        b.failure = why;
        return b;
    }
    if (!ld.exited_ok()) {
        b.failure = Outcome{Status::compile_error, explain_link_failure(ld.output)};
        return b;
    }
    b.host = dirs.build + "/kernel-host";
    return b;
}

std::string link_trusted_host(const Layout& layout, const std::string& work_dir, const std::string& kernels_text) {
    HandinDirs dirs(work_dir);
    const Toolkit toolkit = prepare_toolkit(layout, dirs);
    const std::string source = dirs.src + "/kernels.c", object = dirs.build + "/kernels.o";
    write_text(source, kernels_text);
    const std::uint64_t memory = 2ull << 30;
    Finished cc = run_toolchain(compile_command(toolkit, source, object), dirs, toolkit, 120, memory);
    if (!cc.exited_ok()) throw std::runtime_error("cannot compile the calibration kernels: " + first_error_line(cc.output));
    Finished ld = link(dirs, toolkit, source, {object}, dirs.build + "/kernel-host", 120, memory);
    if (!ld.exited_ok())
        throw std::runtime_error("cannot link a kernel host with " + layout.host_runtime + ": " + first_error_line(ld.output));
    return dirs.build + "/kernel-host";
}

}  // namespace perflab::grader
