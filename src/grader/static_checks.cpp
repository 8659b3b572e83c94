#include "static_checks.hpp"

#include <csignal>
#include <fmt/format.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <filesystem>

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

// nm, objdump and ldd parse the untrusted object: they run in the compiler sandbox,
// seeing the system and the directory of the file they read (its last argument).
std::string run_tool(const std::vector<std::string>& argv) {
    SandboxSpec box;
    box.kind = SandboxKind::compiler;
    std::string file = argv.back();
    if (file.rfind("/usr/", 0) != 0 && file.rfind("/lib", 0) != 0) box.read_only.push_back(std::filesystem::path(file).parent_path().string());
    SpawnSpec spec = command(argv, kToolSeconds, kToolOutputBytes);
    spec.limits.address_space_bytes = 2ull << 30;
    spec.limits.cpu_seconds = kToolSeconds;
    Finished f = spawn_sandboxed(box, spec);
    // Stopped at a limit, the tool read too little of the object to check it: a
    // check of part of its listing passed a syscall placed after 8 MB of movsb, and
    // one that ran out of time (200 MB of nops) was taken for a missing binutils.
    if (f.timed_out || f.signal == SIGXCPU || f.output_truncated)
        throw UncheckableObject(fmt::format("kernels.c compiles to more code than {} can list within its {} s and "
                                            "{} MiB: generate less code",
                                            argv[0], kToolSeconds, kToolOutputBytes >> 20));
    if (!f.exited_ok())
        throw std::runtime_error(fmt::format("{} failed on a compiled hand-in: install binutils", argv[0]));
    return f.output;
}

// Symbol names from `nm -P` lines ("name type [value size]").
std::vector<std::pair<std::string, char>> nm_symbols(const std::vector<std::string>& argv) {
    std::vector<std::pair<std::string, char>> out;
    std::istringstream in(run_tool(argv));
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string name, type;
        if (fields >> name >> type && type.size() == 1) out.emplace_back(name.substr(0, name.find('@')), type[0]);
    }
    return out;
}

}  // namespace

bool symbol_allowed(const std::string& name) { return allow_list().count(name) > 0; }

std::optional<std::string> forbidden_call(const std::string& object) {
    std::vector<std::string> refused;
    for (const auto& [name, type] : nm_symbols({"nm", "-P", "-u", object}))
        if (!symbol_allowed(name)) refused.push_back(name);
    if (refused.empty()) return std::nullopt;
    return fmt::format("kernels.c uses {}, which the grader does not allow (threads, processes, files, sockets, "
                       "signals, timers and system calls are off limits): remove {}",
                       fmt::join(refused, ", "), refused.size() == 1 ? "it" : "them");
}

std::optional<std::string> forbidden_instruction_in(const std::string& disassembly) {
    // objdump -d lines: "  4005d6:\t0f 05                \tsyscall" - the mnemonic follows the last tab.
    static const std::regex bad(R"(\t(syscall|sysenter|rdtscp|rdtsc|rdpmc|int\s+\$0x80)\b)");
    std::istringstream in(disassembly);
    std::string function;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == ':' && line.find('<') != std::string::npos)
            function = line.substr(line.find('<') + 1, line.rfind('>') - line.find('<') - 1);
        std::smatch m;
        if (std::regex_search(line, m, bad)) {
            std::string insn = std::regex_replace(m[1].str(), std::regex(R"(\s+)"), " ");
            return fmt::format("kernels.c contains a '{}' instruction{}: system calls and cycle counters are off "
                               "limits in graded code, remove the inline assembly",
                               insn, function.empty() ? "" : " in " + function);
        }
    }
    return std::nullopt;
}

std::optional<std::string> forbidden_instruction(const std::string& object) {
    return forbidden_instruction_in(run_tool({"objdump", "-d", "--no-show-raw-insn", object}));
}

std::optional<std::string> interposed_symbol(const std::string& object, const std::set<std::string>& library_names) {
    for (const auto& [name, type] : nm_symbols({"nm", "-P", "-g", "--defined-only", object}))
        if (library_names.count(name))
            return fmt::format("kernels.c defines '{}', which is also a C library name the driver relies on: make it "
                               "static or rename it",
                               name);
    return std::nullopt;
}

std::set<std::string> library_symbols(const std::string& program) {
    std::set<std::string> names;
    std::istringstream ldd(run_tool({"ldd", program}));
    for (std::string line; std::getline(ldd, line);) {
        auto arrow = line.find("=> /");
        if (arrow == std::string::npos) continue;
        std::string lib = line.substr(arrow + 3, line.find(" (", arrow) - arrow - 3);
        for (const auto& [name, type] : nm_symbols({"nm", "-P", "-D", "--defined-only", lib}))
            if (type != 'A') names.insert(name);
    }
    return names;
}

}  // namespace perflab::grader
