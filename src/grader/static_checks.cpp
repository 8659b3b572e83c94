#include "static_checks.hpp"

#include <csignal>
#include <fmt/format.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <filesystem>
#include <functional>
#include <string_view>

#include "common/client_request.hpp"
#include "common/line_reader.hpp"
#include "common/untrusted_text.hpp"
#include "sandboxed.hpp"

namespace perflab::grader {
namespace {

// Pure computation and output to the streams the driver already opened.
// fopen/fdopen/freopen, dprintf, write and friends are absent on purpose: with
// them a kernel could reach the report pipe.
const std::set<std::string>& allow_list() {
    static const std::set<std::string> names = {
        // memory and strings
        "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen", "strcmp", "strncmp", "strcpy",
        "strncpy", "strcat", "strncat", "strchr", "strrchr", "strstr", "strdup", "strtol", "strtoul", "strtod", "atoi",
        "atol", "atof", "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign",
        "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__strcat_chk", "__strncpy_chk",
        // arithmetic
        "abs", "labs", "llabs", "div", "ldiv", "qsort", "bsearch", "rand", "srand", "sqrt", "sqrtf", "floor", "floorf",
        "ceil", "ceilf", "round", "roundf", "lround", "trunc", "fabs", "fabsf", "pow", "powf", "exp", "log", "log2",
        "fmin", "fmax", "fminf", "fmaxf", "__divti3", "__udivti3", "__modti3", "__umodti3", "__popcountdi2",
        // output to stdout/stderr
        "printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc", "putc", "fflush", "perror",
        "sprintf", "snprintf", "vsprintf", "vsnprintf", "__printf_chk", "__fprintf_chk", "__vfprintf_chk",
        "__vprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk", "__vsprintf_chk", "stdout", "stderr",
        // what gcc itself emits
        "__stack_chk_fail", "__assert_fail", "abort", "_GLOBAL_OFFSET_TABLE_", "__cpu_model", "__cpu_indicator_init",
        // the driver's registration calls
        "add_rotate_function", "add_smooth_function",
    };
    return names;
}

constexpr unsigned kToolSeconds = 60;
constexpr std::size_t kToolOutputBytes = 256u << 20;
// Far longer than any line an honest object lists (a symbol's name, an instruction).
constexpr std::size_t kToolLineBytes = 1u << 20;

UncheckableObject too_much(const std::string& tool) {
    return UncheckableObject(fmt::format("kernels.c compiles to more code than {} can list within its {} s and {} MiB: "
                                         "generate less code",
                                         tool, kToolSeconds, kToolOutputBytes >> 20));
}

// nm, objdump and ldd parse the untrusted object: they run in the compiler sandbox,
// seeing the system and the directory of the file they read (its last argument).
// Their output is scanned line by line as it arrives, never held: a hostile object
// lists hundreds of MiB, and holding them would let every hand-in take the grader
// that much memory.
void scan_tool(const std::vector<std::string>& argv, const std::function<void(std::string_view)>& on_line) {
    SandboxSpec box;
    box.kind = SandboxKind::compiler;
    const std::string file = argv.back();
    if (file.rfind("/usr/", 0) != 0 && file.rfind("/lib", 0) != 0) box.read_only_files.push_back(file);
    SpawnSpec spec = command(argv, kToolSeconds);
    spec.limits.address_space_bytes = 2ull << 30;
    spec.limits.cpu_seconds = kToolSeconds;
    // A line cut short would hide what follows it on that line: refused like a listing cut short.
    std::string last_line;  // what a tool that fails said last: its own message
    LineReader lines(kToolLineBytes, [&](std::string_view line, bool cut) {
        if (cut) throw too_much(argv[0]);
        if (!line.empty()) last_line = line;
        on_line(line);
    });
    std::size_t listed = 0;
    spec.on_output = [&](std::string_view chunk) {
        listed += chunk.size();
        if (listed > kToolOutputBytes) throw too_much(argv[0]);
        lines.feed(chunk);
    };
    Finished f = spawn_sandboxed(box, spec);
    // Stopped at a limit, the tool read too little of the object to check it: a
    // check of part of its listing passed a syscall placed after 8 MB of movsb, and
    // one that ran out of time (200 MB of nops) was taken for a missing binutils.
    if (f.timed_out || f.signal == SIGXCPU) throw too_much(argv[0]);
    lines.finish();
    if (!f.exited_ok())
        throw std::runtime_error(fmt::format("{} {} on '{}': {}", argv[0], f.describe(), file,
                                             !find_executable(argv[0]) ? "install binutils"
                                                                       : "it said \"" + visible_line(last_line) + "\""));
}

// Each symbol of `nm -P` lines ("name type [value size]"), its name without a version.
void scan_symbols(const std::vector<std::string>& argv, const std::function<void(const std::string&, char)>& on_symbol) {
    scan_tool(argv, [&](std::string_view line) {
        std::istringstream fields{std::string(line)};
        std::string name, type;
        if (fields >> name >> type && type.size() == 1) on_symbol(name.substr(0, name.find('@')), type[0]);
    });
}

// The first few names of a list as long as a hostile object makes it, and how many more.
class FirstNames {
public:
    void add(const std::string& name) {
        if (names_.size() < kShown) names_.push_back(name);
        else ++more_;
    }
    bool empty() const { return names_.empty(); }
    std::size_t size() const { return names_.size() + more_; }
    std::string text() const {
        return fmt::format("{}", fmt::join(names_, ", ")) + (more_ ? fmt::format(" and {} more", more_) : "");
    }

private:
    static constexpr std::size_t kShown = 20;
    std::vector<std::string> names_;
    std::size_t more_ = 0;
};

// The first syscall/sysenter/int 0x80/rdtsc/rdtscp/rdpmc of `objdump -d` lines, fed one at a time.
class InstructionScan {
public:
    void line(std::string_view line) {
        if (found_) return;
        if (!line.empty() && line.back() == ':' && line.find('<') != std::string_view::npos)
            function_ = line.substr(line.find('<') + 1, line.rfind('>') - line.find('<') - 1);
        // objdump -d lines: "  4005d6:\t0f 05                \tsyscall" - the mnemonic follows the last tab.
        static const std::regex bad(R"(\t(syscall|sysenter|rdtscp|rdtsc|rdpmc|int\s+\$0x80)\b)");
        std::cmatch m;
        if (!std::regex_search(line.data(), line.data() + line.size(), m, bad)) return;
        std::string insn = std::regex_replace(m[1].str(), std::regex(R"(\s+)"), " ");
        found_ = fmt::format("kernels.c contains a '{}' instruction{}: system calls and cycle counters are off "
                             "limits in graded code, remove the inline assembly",
                             insn, function_.empty() ? "" : " in " + function_);
    }
    const std::optional<std::string>& found() const { return found_; }

private:
    std::string function_;
    std::optional<std::string> found_;
};

}  // namespace

bool symbol_allowed(const std::string& name) { return allow_list().count(name) > 0; }

std::optional<std::string> forbidden_call(const std::string& object) {
    FirstNames refused;
    scan_symbols({"nm", "-P", "-u", object}, [&](const std::string& name, char) {
        if (!symbol_allowed(name)) refused.add(name);
    });
    if (refused.empty()) return std::nullopt;
    return fmt::format("kernels.c uses {}, which the grader does not allow (threads, processes, files, sockets, "
                       "signals, timers and system calls are off limits): remove {}",
                       refused.text(), refused.size() == 1 ? "it" : "them");
}

std::optional<std::string> forbidden_instruction_in(const std::string& disassembly) {
    InstructionScan scan;
    std::istringstream in(disassembly);
    for (std::string line; std::getline(in, line);) scan.line(line);
    return scan.found();
}

std::optional<std::string> forbidden_instruction(const std::string& object) {
    InstructionScan scan;
    scan_tool({"objdump", "-d", "--no-show-raw-insn", object}, [&](std::string_view line) { scan.line(line); });
    return scan.found();
}

std::optional<std::string> client_request(const std::string& object) {
    auto at = find_client_request_in_file(object);
    if (!at) return std::nullopt;
    return fmt::format("kernels.c contains valgrind's client-request instruction sequence (byte {} of its object), "
                       "with which code talks to the simulator the machine model runs it in: remove the valgrind.h "
                       "macros or the inline assembly",
                       *at);
}

std::optional<std::string> interposed_symbol(const std::string& object, const std::set<std::string>& library_names) {
    std::optional<std::string> found;
    scan_symbols({"nm", "-P", "-g", "--defined-only", object}, [&](const std::string& name, char) {
        if (!found && library_names.count(name))
            found = fmt::format("kernels.c defines '{}', which is also a C library name the driver relies on: make "
                                "it static or rename it",
                                name);
    });
    return found;
}

std::set<std::string> library_symbols(const std::string& program) {
    std::vector<std::string> libraries;
    scan_tool({"ldd", program}, [&](std::string_view line) {
        auto arrow = line.find("=> /");
        if (arrow == std::string_view::npos) return;
        libraries.emplace_back(line.substr(arrow + 3, line.find(" (", arrow) - arrow - 3));
    });
    std::set<std::string> names;
    for (const auto& lib : libraries)
        scan_symbols({"nm", "-P", "-D", "--defined-only", lib}, [&](const std::string& name, char type) {
            if (type != 'A') names.insert(name);
        });
    return names;
}

}  // namespace perflab::grader
