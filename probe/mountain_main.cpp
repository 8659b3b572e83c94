// mountain: the CS:APP memory mountain - read throughput over working-set sizes and
// strides - as a table, a CSV and, with gnuplot, a 3-D PNG. See docs/probe.md.
#include "common/affinity.hpp"
#include "common/atomic_file.hpp"
#include "common/subprocess.hpp"
#include "common/clock.hpp"
#include "huge_buffer.hpp"
#include "latency.hpp"
#include "common/machine.hpp"
#include "mountain.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <numeric>

namespace perflab {
namespace {

std::string size_label(std::size_t bytes) {
    if (bytes >= (std::size_t{1} << 20)) return fmt::format("{}m", bytes >> 20);
    return fmt::format("{}k", bytes >> 10);
}

std::string csv_text(const Mountain& m) {
    std::string out = "size_bytes";
    for (int s : m.strides) out += fmt::format(",s{}", s);
    out += '\n';
    for (std::size_t i = 0; i < m.sizes.size(); ++i) {
        out += std::to_string(m.sizes[i]);
        for (double v : m.mb_per_s[i]) out += fmt::format(",{:.0f}", v);
        out += '\n';
    }
    return out;
}

void print_table(const Mountain& m) {
    fmt::print("read throughput, MB/s (rows: working set; columns: stride in 8-byte words)\n");
    fmt::print("{:>6}", "");
    for (int s : m.strides) fmt::print(" {:>6}", fmt::format("s{}", s));
    fmt::print("\n");
    for (std::size_t i = 0; i < m.sizes.size(); ++i) {
        fmt::print("{:>6}", size_label(m.sizes[i]));
        for (double v : m.mb_per_s[i]) fmt::print(" {:>6.0f}", v);
        fmt::print("\n");
    }
}

// A gnuplot string literal of any text: single quotes take no escapes but '' for a
// quote, so a path or CPU name with a " or a backslash ends nowhere but its own end.
std::string gnuplot_string(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string gnuplot_script(const Mountain& m, const std::string& png, const std::string& title) {
    std::string ytics;
    for (std::size_t size : m.sizes)
        ytics += fmt::format("{}\"{}\" {}", ytics.empty() ? "" : ", ", size_label(size), size);
    std::string data;
    for (std::size_t i = 0; i < m.sizes.size(); ++i) {
        for (std::size_t j = 0; j < m.strides.size(); ++j)
            data += fmt::format("{} {} {:.0f}\n", m.strides[j], m.sizes[i], m.mb_per_s[i][j]);
        data += '\n';  // one scan per size: pm3d joins neighbouring scans into a surface
    }
    // Seen from the large-stride, large-size corner, as on the textbook's figure: the
    // ridges of temporal locality run across the picture, the L1 ridge at the back.
    return fmt::format(R"gp(set terminal pngcairo size 1100,800 enhanced font "sans,11"
set output {}
set title {}
$mountain << EOD
{}EOD
set xlabel "Stride (x8 bytes)" offset 0,-1
set ylabel "Size (bytes)" offset 2,0
set zlabel "Read throughput (MB/s)" rotate by 90 offset -2,0
set logscale y 2
set ytics ({})
set xtics 1, 2
set xrange [{}:{}]
set zrange [0:*]
set ticslevel 0
set view 60, 125
set grid
set pm3d depthorder border lc "black" lw 0.5
set palette defined (0 "#2c3e91", 1 "#1f9e89", 2 "#f0e442", 3 "#d55e00")
unset colorbox
splot $mountain using 1:2:3 with pm3d notitle
)gp",
                       gnuplot_string(png), gnuplot_string(title), data, ytics, m.strides.front(),
                       m.strides.back());
}

bool have_gnuplot() { return find_executable("gnuplot").has_value(); }

// "" or what went wrong.
std::string plot(const Mountain& m, const std::string& png, const std::string& title) {
    // The script beside the picture, run by the project's one launcher of programs.
    const std::string script = png + ".gp";
    try {
        write_file_making_directory(script, gnuplot_script(m, png, title));
        Finished f = spawn(command({"gnuplot", script}, 120));
        std::filesystem::remove(script);
        if (!f.exited_ok()) return fmt::format("gnuplot {}: {}", f.describe(), f.output.substr(0, f.output.find('\n')));
    } catch (const std::exception& e) {
        return std::string("cannot run gnuplot: ") + e.what();
    }
    return "";
}

// The CSV where asked, its directory made first (build/ by default).
std::string write_csv(const std::string& path, const std::string& text) {
    try {
        write_file_making_directory(path, text);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

int fail(const std::string& message) {
    fmt::print(stderr, "mountain: {}\n", message);
    return 1;
}

int run(int argc, char** argv) {
    CLI::App app{"Draws the CS:APP memory mountain: read throughput over working-set sizes "
                 "(16 KiB to 128 MiB) and strides (1 to 15 words of 8 bytes).",
                 "mountain"};
    app.set_version_flag("--version", "mountain (perflab) 1.0");
    bool quick = false, no_png = false;
    std::string csv_path = "build/mountain.csv", png_path = "build/mountain.png";
    int cpu = -1;
    app.add_flag("--quick", quick, "a smaller grid: sizes up to 16 MiB, strides 1 to 8");
    app.add_option("--csv", csv_path, "where to write the grid as CSV")
        ->capture_default_str()
        ->type_name("FILE");
    app.add_option("--png", png_path, "where gnuplot draws the mountain")
        ->capture_default_str()
        ->type_name("FILE");
    app.add_flag("--no-png", no_png, "do not run gnuplot");
    app.add_option("--cpu", cpu, "pin to this CPU (default: the last one allowed)")
        ->check(CLI::NonNegativeNumber);
    app.footer("Exit status: 0 on success, 1 on a usage error or when an output cannot be "
               "written.\nDocumented in docs/probe.md.");
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return fail(fmt::format("{}; see mountain --help", e.what()));
    }

    MountainOptions options;
    options.sizes = size_grid(std::size_t{16} << 10, std::size_t(quick ? 16 : 128) << 20, 1);
    options.strides.resize(quick ? 8 : 15);
    std::iota(options.strides.begin(), options.strides.end(), 1);
    if (quick) {
        options.kbest = {3, 0.05, 5};
        options.min_loads_per_sample = std::size_t{1} << 18;
    }

    const Pinning pin = pin_to_one_cpu(cpu >= 0 ? std::optional<int>(cpu) : std::nullopt);
    if (cpu >= 0 && pin.cpu < 0) return fail(pin.error);
    auto clock = make_default_clock();
    HugeBuffer buffer(options.sizes.back());
    const std::uint64_t t0 = monotonic_ns();
    const Mountain m = measure_mountain(*clock, reinterpret_cast<long*>(buffer.data()), options);
    const double seconds = double(monotonic_ns() - t0) / 1e9;

    const std::string cpu_model = read_machine_info(pin.cpu).cpu_model;
    fmt::print("mountain: {}, pinned to {}\n", cpu_model,
               pin.cpu >= 0 ? fmt::format("CPU {}", pin.cpu) : "no CPU (" + pin.error + ")");
    fmt::print("clock: {}\nhuge pages: {}\n\n", clock->describe(), buffer.describe());
    print_table(m);
    std::size_t unsettled = 0;
    for (const auto& row : m.converged) unsettled += std::size_t(std::count(row.begin(), row.end(), false));
    if (unsettled)
        fmt::print("({} of {} points never had {} samples agree within {:.1f}%: the machine was busy)\n",
                   unsettled, m.sizes.size() * m.strides.size(), options.kbest.k,
                   options.kbest.epsilon * 100);

    if (auto error = write_csv(csv_path, csv_text(m)); !error.empty()) return fail(error);
    fmt::print("\nwrote {}", csv_path);
    if (no_png) {
        fmt::print("\n");
    } else if (!have_gnuplot()) {
        fmt::print("\nno PNG: gnuplot is not installed (sudo apt-get install gnuplot-nox)\n");
    } else {
        const std::string title = fmt::format("Memory mountain: {}", cpu_model);
        if (auto error = plot(m, png_path, title); !error.empty()) return fail(error);
        fmt::print(" and {}\n", png_path);
    }
    fmt::print("took {:.1f} s\n", seconds);
    return 0;
}

}  // namespace
}  // namespace perflab

int main(int argc, char** argv) { return perflab::run(argc, argv); }
