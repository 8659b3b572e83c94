// ./cachesim: simulates the course's LRU, write-back, write-allocate cache on a
// valgrind lackey trace, read from a file or from a program run under valgrind.
#include "common/cachesim.hpp"
#include "cachesim_elf.hpp"
#include "cachesim_program.hpp"
#include "common/subprocess.hpp"
#include "common/lackey_trace.hpp"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>

namespace perflab {
namespace {

constexpr const char* usage =
    "usage: cachesim -s <s> -E <E> -b <b> (-t <tracefile> | --trace-program [--function NAME] "
    "-- prog args) [-v]";

constexpr const char* description = R"(Simulates a cache of S = 2^s sets of E lines of B = 2^b bytes with LRU
replacement, write-back and write-allocate on a valgrind lackey trace. Each data
access (L load, S store, M modify = load then store) references every block it
touches; I lines are instructions and are not simulated. Prints
  hits:H misses:M evictions:V
  dirty_bytes_evicted:X dirty_bytes_active:Y
where a dirty line costs B bytes when it is evicted (X) or still cached at the
end (Y). Malformed trace lines are reported on stderr with their line number and
skipped; the exit status is then 1. s=0 is fully associative, E=1 direct-mapped.)";

constexpr const char* function_help =
    "with --trace-program: keep only the data accesses made by NAME's own "
    "instructions (the I line before an access lies in NAME's symbol range); "
    "functions it calls are not counted, code inlined into it is";

// The classic flags take plain decimal numbers; CLI11's own conversion would read
// "-1" as 2^64-1 and "010" as octal.
std::optional<std::uint64_t> parse_count(const std::string& text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

int fail(const std::string& message) {
    fmt::print(stderr, "cachesim: {}\n", message);
    return 1;
}

// Feeds the trace's data accesses to the simulator, keeping only those of the
// filtered function when one is given, and prints the -v listing.
class Simulation final : public TraceSink {
public:
    Simulation(CacheSim& sim, std::string trace_name, bool verbose)
        : sim_(sim), trace_name_(std::move(trace_name)), verbose_(verbose) {}

    // Restricts the simulation to accesses whose instruction lies in ranges, which
    // are link-time addresses that move by the offset relocate() returns once the
    // first instruction shows the program is loaded.
    template <class Relocate>
    void filter(std::vector<AddressRange> ranges, Relocate relocate) {
        ranges_ = std::move(ranges);
        relocate_ = std::move(relocate);
        keep_ = false;
    }

    void instruction(std::uint64_t addr, std::uint64_t) override {
        if (!relocate_) return;
        if (!relocated_) {
            const std::uint64_t offset = relocate_();
            for (auto& range : ranges_) range = {range.begin + offset, range.end + offset};
            relocated_ = true;
        }
        keep_ = false;
        for (const auto& range : ranges_) keep_ = keep_ || range.contains(addr);
    }

    void data(AccessKind kind, std::uint64_t addr, std::uint64_t size) override {
        if (!keep_) return;
        if (!verbose_) {
            sim_.access(addr, size, kind);
            return;
        }
        line_.clear();
        fmt::format_to(std::back_inserter(line_), "{} {:x},{}", access_letter(kind), addr, size);
        sim_.access(addr, size, kind, [this](BlockOutcome outcome) {
            line_.append(outcome == BlockOutcome::hit    ? std::string_view(" hit")
                         : outcome == BlockOutcome::miss ? std::string_view(" miss")
                                                         : std::string_view(" miss eviction"));
        });
        line_.push_back('\n');
        std::fwrite(line_.data(), 1, line_.size(), stdout);
    }

    void malformed(std::uint64_t line_number, std::string_view line, const char* problem) override {
        // A binary file given by mistake would otherwise flood the terminal.
        constexpr std::uint64_t max_reported = 10;
        if (++malformed_ <= max_reported)
            fmt::print(stderr, "cachesim: {}:{}: malformed access '{}' ({})\n", trace_name_,
                       line_number, line, problem);
    }

    // Returns the exit status the trace's quality calls for.
    int report_malformed() const {
        if (malformed_ == 0) return 0;
        return fail(fmt::format("{}: {} malformed line(s) skipped", trace_name_, malformed_));
    }

private:
    CacheSim& sim_;
    std::string trace_name_;
    bool verbose_;
    bool keep_ = true;
    std::vector<AddressRange> ranges_;
    std::function<std::uint64_t()> relocate_;
    bool relocated_ = false;
    std::string line_;
    std::uint64_t malformed_ = 0;
};

void print_summary(const CacheSim& sim) {
    fmt::print("hits:{} misses:{} evictions:{}\n", sim.hits(), sim.misses(), sim.evictions());
    fmt::print("dirty_bytes_evicted:{} dirty_bytes_active:{}\n", sim.dirty_bytes_evicted(),
               sim.dirty_bytes_active());
}

int run(int argc, char** argv) {
    CLI::App app{description, "cachesim"};
    app.set_version_flag("--version", "cachesim (perflab) 1.0");
    std::string s_text, e_text, b_text, trace_file, function;
    std::vector<std::string> program;
    bool verbose = false, trace_program = false;
    app.add_option("-s", s_text, "set-index bits: S = 2^s sets (0 = fully associative)")
        ->type_name("<s>");
    app.add_option("-E", e_text, "lines per set (1 = direct-mapped)")->type_name("<E>");
    app.add_option("-b", b_text, "block-offset bits: B = 2^b bytes per block")->type_name("<b>");
    auto* trace_opt = app.add_option("-t", trace_file, "lackey trace file to simulate ('-' = stdin)")
                          ->type_name("<tracefile>");
    auto* program_opt = app.add_flag(
        "--trace-program", trace_program,
        "run the program given after -- under valgrind lackey and simulate its trace, "
        "streamed through a pipe (the program's output goes to stderr once it ends)");
    auto* function_opt = app.add_option("--function", function, function_help)->type_name("NAME");
    app.add_option("program", program, "after --: the program to trace and its arguments");
    app.add_flag("-v", verbose, "print every data access with its outcome, csim-ref style");
    trace_opt->excludes(program_opt);
    function_opt->needs(program_opt);
    app.footer("Exit status: 0 on success; 1 on a usage error, an unreadable trace, malformed "
               "trace lines, or a traced program that did not exit 0.\nDocumented in docs/cachesim.md.");

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return fail(fmt::format("{}; {}", e.what(), usage));
    }

    CacheGeometry geometry;
    for (const auto& [flag, text, field] : {std::tuple{"-s", &s_text, &geometry.s},
                                            {"-E", &e_text, &geometry.E},
                                            {"-b", &b_text, &geometry.b}}) {
        if (text->empty()) return fail(fmt::format("{} is required; {}", flag, usage));
        const auto value = parse_count(*text);
        if (!value)
            return fail(fmt::format("{} '{}' is not a non-negative decimal integer; {}", flag, *text, usage));
        *field = *value;
    }
    if (auto problem = geometry.validate(); !problem.empty())
        return fail(fmt::format("{}; {}", problem, usage));
    if (trace_file.empty() && !trace_program)
        return fail(fmt::format("give a trace with -t or --trace-program; {}", usage));
    if (trace_program && program.empty())
        return fail(fmt::format("--trace-program needs a program after --; {}", usage));
    if (!trace_program && !program.empty())
        return fail(fmt::format("unexpected argument '{}'; {}", program.front(), usage));

    CacheSim sim(geometry);
    if (!trace_program) {
        const bool from_stdin = trace_file == "-";
        const int fd = from_stdin ? STDIN_FILENO : ::open(trace_file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return fail(fmt::format("cannot read trace file {}: {}", trace_file, std::strerror(errno)));
        Simulation simulation(sim, from_stdin ? "<stdin>" : trace_file, verbose);
        try {
            read_lackey_trace(fd, simulation);
        } catch (const std::system_error& e) {
            return fail(fmt::format("cannot read trace file {}: {}", trace_file, e.code().message()));
        }
        if (!from_stdin) ::close(fd);
        print_summary(sim);
        return simulation.report_malformed();
    }

    // Looked up before valgrind starts, so that a wrong name costs no run; a
    // missing program is left for TracedProgram to report.
    std::optional<FunctionLocation> location;
    if (const auto path = find_executable(program.front()); path && !function.empty())
        location = locate_function(*path, function);
    TracedProgram traced(program);
    Simulation simulation(sim, "valgrind trace of " + program.front(), verbose);
    if (location) {
        simulation.filter(location->ranges, [&traced, location = *location] {
            return location.position_independent
                       ? traced.load_base() - location.lowest_load_address
                       : std::uint64_t{0};
        });
    }
    const Finished done = traced.run(simulation);
    std::fwrite(done.output.data(), 1, done.output.size(), stderr);
    if (done.output_truncated)
        fmt::print(stderr, "cachesim: {}'s output was cut at {} bytes\n", program.front(), done.output.size());
    print_summary(sim);
    const int trace_status = simulation.report_malformed();
    if (!done.exited_ok()) return fail(fmt::format("{} {}", program.front(), done.describe()));
    return trace_status;
}

} // namespace
} // namespace perflab

int main(int argc, char** argv) {
    try {
        return perflab::run(argc, argv);
    } catch (const std::exception& e) {
        return perflab::fail(e.what());
    }
}
