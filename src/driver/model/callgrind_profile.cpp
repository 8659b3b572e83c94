#include "callgrind_profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>

#include "common/scratch_dir.hpp"
#include "common/subprocess.hpp"

namespace perflab {
namespace {

// Valgrind starts in well under a second; the model runs one call at the default
// dims in a few. Far more means a kernel that loops: the timing's own limits apply.
constexpr double kCallgrindSeconds = 600;

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::optional<std::uint64_t> parse_number(const std::string& word) {
    if (word.empty() || word.size() > 20) return std::nullopt;
    std::size_t used = 0;
    try {
        std::uint64_t v = std::stoull(word, &used, 0);  // "0x4012a0" or decimal
        if (used != word.size()) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string cache_option(const char* name, std::uint64_t bytes, int ways, int line) {
    return fmt::format("--{}={},{},{}", name, bytes, ways, line);
}

// The dump, read from outside the sandbox: a regular file of the run's own
// directory, never a link the program left there to point us elsewhere.
std::variant<CallgrindProfile, SimulationError> read_dump(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return SimulationError{"callgrind wrote no regular output file for the modelled call"};
    }
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
    close(fd);
    std::istringstream in(text);
    return parse_callgrind_out(in);
}

// `file` copied into the new directory `dir`, both readable by anyone and writable by
// this side only; returns the copy's path.
std::string program_copy(const std::string& file, const std::string& dir) {
    namespace fs = std::filesystem;
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms(0755));
    const std::string copy = dir + "/" + fs::path(file).filename().string();
    fs::copy_file(file, copy);
    fs::permissions(copy, fs::perms(0555));
    return copy;
}

}  // namespace

std::variant<CallgrindProfile, SimulationError> parse_callgrind_out(std::istream& in) {
    CallgrindProfile p;
    std::vector<std::uint64_t CacheCounts::*> columns;
    std::size_t positions = 0;
    int parts = 0;
    bool skip_next = false;  // the line after calls= is the call's inclusive cost, counted at its callee
    std::optional<CacheCounts> totals;
    std::string function;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        auto bad = [&](const char* what) {
            return SimulationError{fmt::format("callgrind output line {}: {}", number, what)};
        };
        if (line.empty() || line[0] == '#') continue;
        if (starts_with(line, "part:")) {
            if (++parts > 1) return SimulationError{"callgrind dumped its counts more than once: a client request in the program did"};
        } else if (starts_with(line, "positions:")) {
            std::istringstream names(line.substr(10));
            positions = 0;
            for (std::string name; names >> name;) ++positions;
        } else if (starts_with(line, "events:")) {
            std::istringstream names(line.substr(7));
            for (std::string name; names >> name;) columns.push_back(cache_count_field(name));
        } else if (starts_with(line, "fn=")) {
            function = line.substr(3);
        } else if (starts_with(line, "calls=") || starts_with(line, "jump=") || starts_with(line, "jcnd=")) {
            skip_next = true;
        } else if (starts_with(line, "totals:") || starts_with(line, "summary:")) {
            std::istringstream words(line.substr(line.find(':') + 1));
            CacheCounts c;
            std::size_t i = 0;
            for (std::string w; words >> w; ++i) {
                auto v = parse_number(w);
                if (!v || i >= columns.size()) return bad("bad totals");
                if (columns[i]) c.*columns[i] = *v;
            }
            if (totals && !(*totals == c)) return bad("the summary and the totals differ");
            totals = c;
        } else if (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '+' || line[0] == '-' ||
                   line[0] == '*') {
            if (skip_next) {
                skip_next = false;
                continue;
            }
            if (columns.empty() || positions == 0) return bad("counts before events: and positions:");
            std::istringstream words(line);
            std::string address_word;
            words >> address_word;
            auto address = parse_number(address_word);
            if (!address) return bad("not an absolute instruction address (run with --compress-pos=no --dump-instr=yes)");
            std::string skipped;
            for (std::size_t k = 1; k < positions; ++k) words >> skipped;
            CacheCounts c;
            std::size_t i = 0;
            for (std::string w; words >> w; ++i) {
                auto v = parse_number(w);
                if (!v || i >= columns.size()) return bad("bad counts");
                if (columns[i]) c.*columns[i] = *v;
            }
            p.instructions[*address] += c;
            p.total += c;
            if (c.Ir) p.functions.insert(function);
        }
        // version:, creator:, pid:, cmd:, desc:, ob=, fl=, fi=, fe=, cob=, cfi=, cfn=: no counts.
    }
    if (columns.empty()) return SimulationError{"not a callgrind output file (no events: line)"};
    if (!totals) return SimulationError{"callgrind output ends before its totals: the run was cut short"};
    if (!(*totals == p.total))
        return SimulationError{"callgrind output is inconsistent: its instructions' counts do not add up to its totals"};
    return p;
}

std::variant<CallgrindResult, SimulationError> run_callgrind(const CallgrindRun& run, const MachineModel& model) {
    if (run.argv.empty()) return SimulationError{"no program to run under callgrind"};
    auto valgrind = find_executable("valgrind");
    if (!valgrind) return SimulationError{"valgrind is not installed: apt-get install valgrind"};
    std::optional<ScratchDir> scratch;
    try {
        scratch.emplace("perflab-model");
    } catch (const std::exception& e) {
        return SimulationError{e.what()};
    }
    const std::string out_file = scratch->file("callgrind.out");
    std::vector<std::string> argv{*valgrind,
                                  "--tool=callgrind",
                                  "-q",
                                  "--cache-sim=yes",
                                  "--dump-instr=yes",
                                  "--compress-pos=no",
                                  "--compress-strings=no",
                                  "--collect-atstart=no",
                                  "--toggle-collect=" + run.collect,
                                  cache_option("D1", model.l1d.bytes, model.l1d.ways, model.line_bytes),
                                  cache_option("LL", model.ll.bytes, model.ll.ways, model.line_bytes),
                                  // Instruction fetches are not priced; any valid cache will do.
                                  cache_option("I1", model.l1d.bytes, model.l1d.ways, model.line_bytes),
                                  "--callgrind-out-file=" + out_file};
    argv.insert(argv.end(), run.argv.begin(), run.argv.end());
    std::optional<SandboxCommand> boxed;
    if (run.sandbox) {
        SandboxSpec box = *run.sandbox;
        box.kind = SandboxKind::simulator;
        box.writable_dir = scratch->path();
        sandbox_own(scratch->path());
        // valgrind names the program's functions from the file its mapping shows, and a
        // file handed to the sandbox as data shows as deleted: callgrind then knows no
        // function, and counts nothing. The program runs from a copy in a directory of
        // this side's that the sandbox may read, never write.
        try {
            const std::string program = program_copy(run.argv[0], scratch->path() + "/program");
            std::erase(box.read_only_files, run.argv[0]);
            argv[argv.size() - run.argv.size()] = program;
        } catch (const std::exception& e) {
            return SimulationError{std::string("cannot copy the program for the model's run: ") + e.what()};
        }
        try {
            boxed = sandbox_command(box, argv);
        } catch (const std::exception& e) {
            return SimulationError{std::string("cannot sandbox the model's run: ") + e.what()};
        }
        argv = boxed->argv;
    }
    SpawnSpec spec = command(argv, kCallgrindSeconds);
    if (boxed) spec.inherit_fds = boxed->inherited_fds;
    spec.input = run.input;
    spec.report_pipe = true;
    spec.fixed_addresses = true;  // so that runs repeat exactly
    spec.separate_stderr = true;
    Finished f = spawn(spec);
    if (!f.exited_ok()) {
        std::string last = f.error_output.substr(0, f.error_output.find('\n'));
        return SimulationError{fmt::format("'{}' under callgrind {}{}", run.argv[0], f.describe(),
                                           last.empty() ? "" : ": " + last)};
    }
    auto profile = read_dump(out_file);
    if (auto* err = std::get_if<SimulationError>(&profile)) return *err;
    return CallgrindResult{std::move(std::get<CallgrindProfile>(profile)), std::move(f.report)};
}

}  // namespace perflab
