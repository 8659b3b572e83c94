// The classic command line and what perflab adds to it, through the real binary.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/affinity.hpp"
#include "common/clock.hpp"
#include "common/machine.hpp"
#include "harness.hpp"
#include "lab_settings.hpp"

using namespace perflab::test;

namespace {

const std::string& fast_driver() {
    static const std::string exe = build_driver("tests/fixtures/kernels/fast.c");
    return exe;
}

const std::string& stock_driver() {
    static const std::string exe = build_driver("kernels/kernels.c");
    return exe;
}

// Small and quick: correctness is what these tests are about, not timing.
const std::vector<std::string> kQuick{"--dims", "32,64", "--max-samples", "3"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("-d writes every registered variant and -q stops there", "[driver][cli]") {
    std::string dir = scratch_dir("cli-dump");
    auto r = run({fast_driver(), "-q", "-d", dir + "/funcs.txt"});
    CHECK(r.status == 0);
    CHECK(r.out.empty());  // -q quits before the team header and any timing
    CHECK(read_file(dir + "/funcs.txt") ==
          "R:rotate: Current working version\n"
          "R:second_rotate: the same code, registered twice\n"
          "S:smooth: Current working version ✓ (UTF-8 intact)\n");
}

TEST_CASE("-f times exactly the variants a -d file lists", "[driver][cli]") {
    std::string dir = scratch_dir("cli-f");
    REQUIRE(run({fast_driver(), "-q", "-d", dir + "/all.txt"}).status == 0);
    // Keep the second rotate only, as a student would by editing the dump.
    write_file(dir + "/some.txt", "R:second_rotate: the same code, registered twice\n");
    auto r = run(with({fast_driver(), "-f", dir + "/some.txt"}, kQuick));
    REQUIRE(r.status == 0);
    auto versions = lines_starting_with(r.out, "Rotate: Version = ");
    REQUIRE(versions.size() == 1);
    CHECK(versions[0] == "Rotate: Version = second_rotate: the same code, registered twice:");
    CHECK(lines_starting_with(r.out, "Smooth: Version = ").empty());
}

TEST_CASE("-g ends with the bestscores line of the graded functions", "[driver][cli]") {
    auto r = run(with({fast_driver(), "-g"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK(lines_starting_with(r.out, "Rotate: Version = rotate() function:").size() == 1);
    CHECK(lines_starting_with(r.out, "Smooth: Version = smooth() function:").size() == 1);
    std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
    CHECK_THAT(last, Catch::Matches(R"(bestscores:\d+\.\d:\d+\.\d:\n)"));
    CHECK(r.out.find("Summary of Your Best Scores") == std::string::npos);
}

TEST_CASE("the team check refuses bovik and prints the team otherwise", "[driver][cli]") {
    auto bovik = run({stock_driver()});
    CHECK(bovik.status == 1);
    CHECK(bovik.out == stock_driver() + ": Please fill in the team struct in kernels.c.\n");

    auto skipped = run(with({stock_driver(), "-t", "--kernel", "rotate"}, kQuick));
    CHECK(skipped.status == 0);
    CHECK(skipped.out.find("Teamname:") == std::string::npos);
    CHECK(skipped.out.find("Summary of Your Best Scores:") != std::string::npos);

    auto named = run(with({fast_driver(), "--kernel", "rotate"}, kQuick));
    CHECK(named.out.rfind("Teamname: fastteam\nMember 1: Ada Lovelace\nEmail 1: ada@example.edu\n\n", 0) == 0);
}

TEST_CASE("-h prints the classic usage on stderr and exits 1", "[driver][cli]") {
    auto r = run({fast_driver(), "-h"});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "Usage: " + fast_driver() + " [-hqg] [-f <func_file>] [-d <dump_file>]\n");
}

TEST_CASE("--help lists the long options and --version answers", "[driver][cli]") {
    auto help = run({fast_driver(), "--help"});
    CHECK(help.status == 0);
    for (const char* opt : {"--dims", "--classic-dims", "--kernel", "--variant", "--json", "--seed", "--baseline",
                            "--calibrate", "--counters", "--simulate", "--explain", "--version"})
        CHECK(help.out.find(opt) != std::string::npos);
    auto version = run({fast_driver(), "--version"});
    CHECK(version.status == 0);
    CHECK(version.out.rfind("perflab driver ", 0) == 0);
}

TEST_CASE("bad flags, values and files give one line on stderr and status 1", "[driver][cli]") {
    std::string dir = scratch_dir("cli-bad");
    const std::vector<std::vector<std::string>> bad{
        {"--no-such-flag"},
        {"--dims", "0"},
        {"--dims", "64,abc"},
        {"--dims", "64,128,64"},
        {"--kernel", "sharpen"},
        {"-s", "not-a-number"},
        {"-f", dir + "/missing.txt"},
        {"--baseline", dir + "/missing.toml"},
        {"--variant", "no_such_variant"},
        {"--json", dir + "/no/such/dir/report.json", "--dims", "32", "--max-samples", "3"},
        // Values that turn on a feature (--events counts, --cache-geometry simulates) are checked first.
        {"--cache-geometry", "garbage"},
        {"--simulate", "--cache-geometry", "D1=32768,8,64:LL=16,1,16", "--dims", "32"},  // valgrind's own limits
        {"--events", "NO_SUCH_EVENT"},
        {"-f", dir},
        {"-f", dir + "/unlisted.txt"},
    };
    write_file(dir + "/unlisted.txt", "R:rotate: Current working version\nR:no_such: variant\n");
    for (const auto& args : bad) {
        INFO("args: " << args.front() << " " << (args.size() > 1 ? args[1] : ""));
        auto r = run(with({fast_driver()}, args));
        CHECK(r.status == 1);
        CHECK(!r.err.empty());
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.find("Segmentation") == std::string::npos);
    }
    // A bad flag is refused before anything is measured or printed.
    CHECK(run({fast_driver(), "--dims", "0"}).out.empty());
    // A bound is told as a bound, whether the value is a word or a number past it.
    CHECK_THAT(run({fast_driver(), "--dims", "64,abc"}).err, Catch::Contains("abc is not a whole number from 1 to 8192"));
    CHECK_THAT(run({fast_driver(), "--epsilon", "2"}).err, Catch::Contains("2 is not a number from 0 to 1"));
}

TEST_CASE("a baseline or policy file that is not TOML is told what the file should hold", "[driver][cli]") {
    std::string dir = scratch_dir("cli-not-toml");
    write_file(dir + "/report.json", "{\"schema\": 1}\n");  // a JSON report given by mistake
    auto baseline = run({fast_driver(), "--baseline", dir + "/report.json", "--dims", "32"});
    CHECK(baseline.status == 1);
    CHECK_THAT(baseline.err, Catch::Contains(dir + "/report.json:1: ") && Catch::Contains("./driver --calibrate"));
    auto policy = run({fast_driver(), "--policy", dir + "/report.json", "--dims", "32"});
    CHECK(policy.status == 1);
    CHECK_THAT(policy.err, Catch::Contains(dir + "/report.json:1: ") && Catch::Contains("[rotate] and [smooth] tables"));
    for (const auto* r : {&baseline, &policy}) CHECK(std::count(r->err.begin(), r->err.end(), '\n') == 1);
}

TEST_CASE("--variant selects by name or by description", "[driver][cli]") {
    auto by_name = run(with({fast_driver(), "--variant", "second_rotate"}, kQuick));
    REQUIRE(by_name.status == 0);
    CHECK(lines_starting_with(by_name.out, "Rotate: Version = ").size() == 1);
    CHECK(lines_starting_with(by_name.out, "Smooth: Version = ").empty());
}

TEST_CASE("an unknown --variant is told the names it could have used", "[driver][cli]") {
    // The fixture's variants have short names of their own (the text before ':').
    auto own = run(with({fast_driver(), "--variant", "no_such_variant"}, kQuick));
    CHECK(own.status == 1);
    CHECK_THAT(own.err, Catch::Contains("'second_rotate'"));
    // The reference solutions all begin "rotate:" or "smooth:": a short name they share
    // selects all of them, not one, so the list gives their whole descriptions.
    auto shared = run({repo("driver"), "--host", repo("build/solutions-host"), "--variant", "no_such_variant"});
    CHECK(shared.status == 1);
    CHECK_THAT(shared.err, Catch::Contains("'rotate: blocked 32x32 tiles'") &&
                               !Catch::Contains("'rotate', 'rotate'"));
}

TEST_CASE("--classic-dims uses the old handout's dimensions", "[driver][cli]") {
    std::string dir = scratch_dir("cli-classic");
    auto r = run({fast_driver(), "--classic-dims", "--max-samples", "1", "--json", dir + "/r.json"});
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
    CHECK(j["config"]["dims"]["rotate"] == nlohmann::json({64, 128, 256, 512, 1024}));
    CHECK(j["config"]["dims"]["smooth"] == nlohmann::json({32, 64, 128, 256, 512}));
    CHECK(lines_starting_with(r.out, "Dim\t\t64\t128\t256\t512\t1024\tMean").size() == 2);
}

TEST_CASE("the classic table layout: tabs and one decimal", "[driver][cli]") {
    auto r = run(with({fast_driver(), "--variant", "rotate"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK(r.out.find("Rotate: Version = rotate: Current working version:\nDim\t\t32\t64\tMean\n") != std::string::npos);
    CHECK_THAT(r.out, Catch::Contains("\nYour CPEs\t") && Catch::Contains("\nBaseline CPEs\t") &&
                          Catch::Contains("\nSpeedup\t\t"));
    auto cpes = lines_starting_with(r.out, "Your CPEs\t");
    REQUIRE(cpes.size() == 1);
    CHECK_THAT(cpes[0], Catch::Matches(R"(Your CPEs\t\d+\.\d\*?\t\d+\.\d\*?)"));
    CHECK_THAT(r.out, Catch::Contains("Summary of Your Best Scores:\n  Rotate: "));
}

TEST_CASE("a kernels file without team is told so in its own terms, not as a link error", "[driver][cli]") {
    std::string text = read_file(repo("kernels/kernels.c"));
    auto start = text.find("team_t team = {");
    REQUIRE(start != std::string::npos);
    text.erase(start, text.find("};", start) + 2 - start);
    std::string dir = scratch_dir("noteam");
    write_file(dir + "/noteam.c", text);
    try {
        build_driver(dir + "/noteam.c");
        FAIL("a kernels file without team linked");
    } catch (const std::runtime_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("noteam.c does not define 'team', which the driver needs"));
        CHECK_THAT(e.what(), !Catch::Contains("undefined reference"));
    }
}

TEST_CASE("a kernels file's code lies at the same place within a page in every host it is linked into",
          "[driver][cli]") {
    // Code placement moved a blocked rotate by 15-40%: the host links each kernels
    // object at a page boundary, so a function's offset in its page is its offset in
    // the object, whatever the runtime linked before it.
    std::string dir = build_driver("kernels/kernels.c");
    dir = dir.substr(0, dir.rfind('/'));
    auto symbols = [](const std::string& file) {
        auto r = sh("nm --defined-only '" + file + "'");
        REQUIRE(r.status == 0);
        std::map<std::string, unsigned long long> at;
        std::istringstream in(r.out);
        for (std::string addr, type, name; in >> addr >> type >> name;)
            if (type == "T" || type == "t") at[name] = std::stoull(addr, nullptr, 16);
        return at;
    };
    auto in_object = symbols(dir + "/kernels.o");
    auto in_host = symbols(dir + "/kernel-host");
    for (const char* fn : {"naive_rotate", "rotate", "naive_smooth", "smooth"}) {
        INFO(fn);
        REQUIRE(in_object.count(fn) == 1);
        REQUIRE(in_host.count(fn) == 1);
        CHECK(in_host[fn] % 4096 == in_object[fn] % 4096);
    }
}

TEST_CASE("the policy's dimensions are the run's unless --dims says otherwise", "[driver][cli][scoring]") {
    const std::string dir = scratch_dir("cli-policy-dims");
    write_file(dir + "/policy.toml", "[rotate]\nmax_points = 50\ncurve = [[1.0, 0], [2.5, 50]]\ndims = [32, 96]\n"
                                     "[smooth]\nmax_points = 50\ncurve = [[1.0, 0], [3.5, 50]]\n");
    auto dims_of = [&](const std::vector<std::string>& extra) {
        auto r = run(with({fast_driver(), "--policy", dir + "/policy.toml", "--max-samples", "2", "--json", dir + "/r.json"},
                          extra));
        REQUIRE(r.status == 0);
        auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
        return std::pair{j["kernels"]["rotate"]["dims"].get<std::vector<int>>(),
                         j["kernels"]["smooth"]["dims"].get<std::vector<int>>()};
    };
    auto [rotate, smooth] = dims_of({});
    CHECK(rotate == std::vector<int>{32, 96});
    CHECK(smooth == std::vector<int>(std::begin(perflab::kLabDims), std::end(perflab::kLabDims)));  // none named
    auto [r2, s2] = dims_of({"--dims", "48"});
    CHECK(r2 == std::vector<int>{48});
    CHECK(s2 == std::vector<int>{48});
}

namespace {

const std::string& registration_driver() {
    static const std::string exe = build_driver("tests/fixtures/kernels/registration.c");
    return exe;
}

}  // namespace

TEST_CASE("-f lines match with stray spaces at their end", "[driver][cli]") {
    std::string dir = scratch_dir("cli-f-spaces");
    write_file(dir + "/some.txt", "R:second_rotate: the same code, registered twice  \r\n");
    auto r = run(with({fast_driver(), "-f", dir + "/some.txt"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK(lines_starting_with(r.out, "Rotate: Version = ") ==
          std::vector<std::string>{"Rotate: Version = second_rotate: the same code, registered twice:"});
}

TEST_CASE("the Score line is the graded rotate()'s even when kernels.c does not register it", "[driver][cli][scoring]") {
    std::string dir = scratch_dir("cli-graded");
    auto r = run(with({registration_driver(), "--json", dir + "/r.json"}, kQuick));
    REQUIRE(r.status == 0);
    auto report = nlohmann::json::parse(read_file(dir + "/r.json"));
    const auto& rotate = report["kernels"]["rotate"];
    std::vector<std::string> graded;
    for (const auto& v : rotate["variants"])
        if (v["graded"].get<bool>()) graded.push_back(v["name"]);
    REQUIRE(graded == std::vector<std::string>{"rotate() function (graded; not registered)"});
    CHECK(rotate["points_from"] == graded[0]);
    CHECK(lines_starting_with(r.out, "Rotate: Version = rotate() function (graded; not registered):").size() == 1);
    CHECK(lines_starting_with(r.out, "Score: Rotate ").size() == 1);

    // Left out by --variant, it earns nothing, and the line says why rather than
    // show another variant's points.
    auto only = run(with({registration_driver(), "--variant", "column", "--kernel", "rotate", "--json", dir + "/o.json"}, kQuick));
    REQUIRE(only.status == 0);
    auto o = nlohmann::json::parse(read_file(dir + "/o.json"));
    CHECK(o["kernels"]["rotate"]["points"].is_null());
    CHECK(o["total_points"].is_null());
    CHECK(lines_starting_with(only.out, "Score: Rotate not scored (rotate() not timed: drop -f/--variant to score it)")
              .size() == 1);
}

TEST_CASE("registration mistakes are told on stderr and the run goes on", "[driver][cli]") {
    std::string dir = scratch_dir("cli-registration");
    auto r = run(with({registration_driver(), "--json", dir + "/r.json"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("registered smooth variant 'forgot: TODO' with a NULL function: it is not timed"));
    CHECK_THAT(r.err, Catch::Contains("is longer than the 511 bytes a report keeps: it was cut there"));
    // The NULL one is not timed; the one after it is, under its own name.
    CHECK(lines_starting_with(r.out, "Smooth: Version = ") ==
          std::vector<std::string>{"Smooth: Version = smooth: Current working version:"});
    // The long description is cut before the character the limit splits: the text
    // and the JSON show the same valid UTF-8.
    const std::string cut = "long: " + std::string(504, 'x');
    CHECK(lines_starting_with(r.out, "Rotate: Version = " + cut + ":") ==
          std::vector<std::string>{"Rotate: Version = " + cut + ":"});
    auto report = nlohmann::json::parse(read_file(dir + "/r.json"));
    std::vector<std::string> names;
    for (const auto& v : report["kernels"]["rotate"]["variants"]) names.push_back(v["name"]);
    CHECK(std::count(names.begin(), names.end(), cut) == 1);
    // What the kernels file prints never reaches a report on stdout: it is shown,
    // marked as its own, on stderr, whatever stdout holds.
    for (const auto& mode : {std::vector<std::string>{}, {"--json", "-"}, {"-g"}}) {
        auto argv = with({registration_driver()}, kQuick);
        argv.insert(argv.end(), mode.begin(), mode.end());
        auto each = run(argv);
        REQUIRE(each.status == 0);
        CHECK_THAT(each.err, Catch::Contains("\n| registration says hello\n"));
        std::string out = each.out;
        if (!mode.empty() && mode[0] == "--json") {
            // The JSON on stdout has it only where it says so.
            auto report = nlohmann::json::parse(out);
            CHECK(report["host_output"]["text"] == "registration says hello\n");
            report.erase("host_output");
            out = report.dump();
        }
        CHECK(out.find("registration says hello") == std::string::npos);
    }
}

TEST_CASE("registrations past the host's limit are told, and no kernel is said to have none", "[driver][cli]") {
    auto r = run(with({build_driver("tests/fixtures/kernels/too_many.c"), "--kernel", "smooth"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("kernels.c registered 45 functions past the 256 a run takes"));
    CHECK_THAT(r.out, Catch::Contains("Smooth: no smooth variant among the registrations the run takes"));
    CHECK(r.out.find("no smooth variant registered") == std::string::npos);
    CHECK(lines_starting_with(r.out, "Smooth: Version = smooth() function (graded; not registered):").size() == 1);
}

TEST_CASE("--check-options checks what a run would read, and times nothing", "[driver][cli]") {
    std::string dir = scratch_dir("cli-check-options");
    auto ok = run({fast_driver(), "--check-options", "--dims", "64,128"});
    CHECK(ok.status == 0);
    CHECK(lines_starting_with(ok.out, "Rotate: Version").empty());
    // A baseline that lacks a dimension the run asks for fails here, as the run would.
    auto calibrated = run({fast_driver(), "--calibrate", "--dims", "64", "--max-samples", "3"});
    REQUIRE(calibrated.status == 0);
    write_file(dir + "/only64.toml", calibrated.out);
    auto bad = run({fast_driver(), "--check-options", "--dims", "64,128", "--baseline", dir + "/only64.toml"});
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("no rotate CPE for dimension 128"));
}

TEST_CASE("calibrating rotate alone prints its table only, and --baseline takes it", "[driver][cli]") {
    std::string dir = scratch_dir("cli-calibrate-rotate");
    auto calibrated = run({fast_driver(), "--calibrate", "--kernel", "rotate", "--dims", "64", "--max-samples", "3"});
    REQUIRE(calibrated.status == 0);
    CHECK(lines_starting_with(calibrated.out, "[rotate.cpe]").size() == 1);
    CHECK(lines_starting_with(calibrated.out, "64 = ").size() == 1);
    CHECK(calibrated.out.find("[smooth") == std::string::npos);
    write_file(dir + "/rotate.toml", calibrated.out);
    auto used = run({fast_driver(), "--check-options", "--kernel", "rotate", "--dims", "64", "--baseline",
                     dir + "/rotate.toml"});
    CHECK(used.status == 0);
}

TEST_CASE("a kernel host built for another version of the driver is told to be rebuilt", "[driver][cli]") {
    // A stale kernel-host beside a newer driver: the host runtime compiled with another
    // protocol version, linked with a kernels file that is not at fault.
    std::string dir = scratch_dir("stale-host");
    std::string header = read_file(repo("src/host/host_protocol.h"));
    auto at = header.find("#define PERFLAB_HOST_VERSION ");
    REQUIRE(at != std::string::npos);
    header.replace(at, header.find('\n', at) - at, "#define PERFLAB_HOST_VERSION 0u");
    write_file(dir + "/host_protocol.h", header);
    write_file(dir + "/kernel_host.c", read_file(repo("src/host/kernel_host.c")));  // beside the header it includes
    std::string kcflags = std::string(perflab::kLabKcflags);
    auto built = run({"/bin/bash", "-c",
                      "gcc " + kcflags + " -I" + repo("kernels") + " -c '" + dir + "/kernel_host.c' -o '" + dir + "/runtime.o' && gcc " + kcflags + " -I" + repo("kernels") + " -c " +
                          repo("kernels/kernels.c") + " -o '" + dir + "/kernels.o' && KCFLAGS='" + kcflags + "' " +
                          repo("mk/link-host.sh") + " '" + dir + "/kernel-host' '" + dir + "/runtime.o' " +
                          repo("kernels/kernels.c") + " '" + dir + "/kernels.o'"});
    INFO(built.err);
    REQUIRE(built.status == 0);
    for (bool sandbox : {false, true}) {
        INFO("sandbox " << sandbox);
        std::vector<std::string> argv{repo("driver"), "--host", dir + "/kernel-host", "--dims", "32", "--max-samples", "2"};
        if (sandbox) argv.push_back("--sandbox");
        auto r = run(argv);
        CHECK(r.status != 0);
        CHECK_THAT(r.err, Catch::Contains("was built for another version of the driver: rebuild it with make"));
        CHECK_THAT(r.err, !Catch::Contains("fix kernels.c"));
    }
}

TEST_CASE("a short --timeout limits kernel calls, not a host's start", "[driver][cli]") {
    const std::string exe = build_driver("tests/fixtures/kernels/slow_start.c");
    auto r = run(with({exe, "--timeout", "1"}, kQuick));
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Score:"));
}

TEST_CASE("what kernels.c prints reaches a driver whose output is a pipe, last partial line included",
          "[driver][cli]") {
    const std::string exe = build_driver("tests/fixtures/kernels/prints.c");
    auto r = run(with({exe, "-t"}, kQuick));  // run() reads the output through pipes: no terminal
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    for (const char* line : {"prints.c: constructor\n", "prints.c: registering, done\n", "prints.c: first rotate at "})
        CHECK_THAT(r.out + r.err, Catch::Contains(line));
}

TEST_CASE("what kernels.c prints comes on its own pipe: labelled, made visible, never blocking, never the driver's",
          "[driver][cli][hostile]") {
    const std::string exe = build_driver("tests/fixtures/kernels/prints_hostile.c");
    const std::string dir = scratch_dir("host-output");
    auto r = run(with({exe, "--json", dir + "/report.json"}, kQuick));
    INFO(r.err.substr(r.err.size() - std::min<std::size_t>(r.err.size(), 2000)));
    // 256 KiB before registering: a host left to fill its pipe would never have registered.
    REQUIRE(r.status == 0);
    // Nothing of it acts on a terminal, anywhere.
    CHECK((r.out + r.err).find('\x1b') == std::string::npos);
    CHECK((r.out + r.err).find('\x07') == std::string::npos);
    // The driver's report is the driver's: not one printed line in it.
    CHECK_THAT(r.out, Catch::Contains("Score:") && !Catch::Contains("ok, 100.0 points") &&
                          !Catch::Contains("crashed: rotate") && !Catch::Contains("fff"));
    // On stderr, after everything the driver said, in one labelled block whose every
    // line is marked, so that no printed line starts a line of its own.
    const auto block = r.err.find("--- kernels.c printed (its own output, not the driver's; the last part of ");
    REQUIRE(block != std::string::npos);
    CHECK((block == 0 || r.err[block - 1] == '\n'));
    const std::string printed = r.err.substr(block);
    CHECK_THAT(printed, Catch::EndsWith("--- end of what kernels.c printed ---\n"));
    CHECK_THAT(printed, Catch::Contains("\n| ok, 100.0 points\n") && Catch::Contains("\\x1b[2K\\rScore: 100") &&
                            Catch::Contains("\\x1b]52;c;Y3VybCBldmlsfHNo\\x07") &&
                            Catch::Contains("| crashed: rotate\\x1b[1A at "));
    for (const char* forged : {"\nok, 100.0 points", "\nScore: 100", "\ncrashed: rotate"})
        CHECK(r.err.find(forged) == std::string::npos);
    // The JSON report carries the same, bounded: the last few KiB of all it printed.
    const auto report = nlohmann::json::parse(read_file(dir + "/report.json"));
    const auto& output = report["host_output"];
    CHECK(output["cut"] == true);
    CHECK(output["bytes"].get<std::uint64_t>() > 256 * 1024);
    CHECK(output["text"].get<std::string>().size() < 8 * 1024);
    CHECK_THAT(output["text"].get<std::string>(), Catch::Contains("ok, 100.0 points\n") && !Catch::Contains("\x1b"));
    CHECK(report["kernels"]["rotate"]["variants"][0]["correct"] == true);
}

TEST_CASE("--events and --cache-geometry ask for their rows without --counters or --simulate", "[driver][cli]") {
    auto r = run(with({fast_driver(), "--kernel", "rotate", "--events", "perf::PAGE-FAULTS", "--cache-geometry",
                       "D1=32768,8,64:LL=1048576,16,64"},
                      kQuick));
    REQUIRE(r.status == 0);
    CHECK_FALSE(lines_starting_with(r.out, "perf::PAGE-FAULTS/px\t").empty());
    CHECK_FALSE(lines_starting_with(r.out, "D1 wr miss/px (sim)\t").empty());
}

TEST_CASE("verbose output says what the report's cycles are ticks of and how that clock was calibrated", "[driver][cli]") {
    auto r = run(with({fast_driver(), "-v", "--kernel", "rotate"}, kQuick));
    REQUIRE(r.status == 0);
    const auto clock = lines_starting_with(r.out, "Clock: ");
    REQUIRE(clock.size() == 1);
    // Host CPU time is in ns: its cycles are only as good as the clock whose rate converts them.
    if (perflab::TscClock::available())
        CHECK_THAT(clock[0], Catch::Contains("cycles are ticks of the TSC") &&
                                 Catch::Contains("calibrated against CLOCK_MONOTONIC"));
    else
        CHECK_THAT(clock[0], Catch::Contains("cycles are ticks of the CLOCK_MONOTONIC"));
}

TEST_CASE("verbose output and the JSON say how many logical CPUs share each cache, as sysfs does", "[driver][cli]") {
    // What the driver reads, the entries of the CPU it pins to; counted here from the
    // other file sysfs gives, the bitmask.
    const std::filesystem::path cache_dir =
        "/sys/devices/system/cpu/cpu" + std::to_string(perflab::last_allowed_cpu()) + "/cache";
    std::map<int, int> sharing;  // level of a data or unified cache -> logical CPUs sharing it
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
        if (entry.path().filename().string().rfind("index", 0) != 0) continue;
        auto first_line = [&](const char* name) {
            std::string text = read_file((entry.path() / name).string());
            return text.substr(0, text.find('\n'));
        };
        if (first_line("type") == "Instruction") continue;
        int cpus = 0;
        for (char hex : first_line("shared_cpu_map"))
            if (std::isxdigit(static_cast<unsigned char>(hex))) cpus += __builtin_popcount(std::stoi(std::string(1, hex), nullptr, 16));
        sharing[std::stoi(first_line("level"))] = cpus;
    }
    if (sharing.empty()) {
        PERFLAB_SKIP("no cache entries in " + cache_dir.string() + ": the driver takes CPUID's, checked in [cachegrind]");
    }
    std::string dir = scratch_dir("cli-sharing");
    auto r = run(with({fast_driver(), "-v", "--kernel", "rotate", "--json", dir + "/r.json"}, kQuick));
    REQUIRE(r.status == 0);
    const auto report = nlohmann::json::parse(read_file(dir + "/r.json"));
    for (const auto& [level, cpus] : sharing) {
        INFO("L" << level << " shared by " << cpus);
        const std::string said = cpus == 1 ? ", private to one logical CPU"
                                           : ", shared by " + std::to_string(cpus) + " logical CPUs";
        const auto lines = lines_starting_with(r.out, "Cache: L" + std::to_string(level) + " ");
        REQUIRE(lines.size() == 1);
        // A size the driver cannot believe (a VM's 480 MiB L3) is said so after the source.
        bool plausible = true;
        for (const auto& c : perflab::read_machine_info(perflab::last_allowed_cpu()).caches)
            if (c.level == level && c.type != "Instruction") plausible = c.plausible;
        CHECK_THAT(lines[0], Catch::Contains(said + (plausible ? " (sysfs)" : " (sysfs; implausible, ignored)")));
        bool in_json = false;
        for (const auto& c : report["machine"]["caches"])
            if (c["level"] == level) in_json = c["shared_cpus"] == cpus;
        CHECK(in_json);
    }
}

TEST_CASE("a run with --clock cycles still times in TSC cycles, and --help does not promise otherwise", "[driver][cli]") {
    auto r = run(with({fast_driver(), "--clock", "cycles", "--kernel", "rotate"}, kQuick));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("TSC cycles instead"));
    std::string clock_help;
    for (const auto& line : lines_starting_with(run({fast_driver(), "--help"}).out, "  --clock")) clock_help += line;
    REQUIRE_FALSE(clock_help.empty());
    CHECK_THAT(clock_help, Catch::Contains("TSC"));
    CHECK(clock_help.find("core cycles from the PMU") == std::string::npos);
}

TEST_CASE("a plain run refuses a driver built before kernels.c last changed, in one line", "[cli]") {
    const std::string dir = scratch_dir("stale-plain-run");
    const std::string source = dir + "/stale_plain.c";  // its own name: drivers are cached by it
    write_file(source, read_file(repo("tests/fixtures/kernels/fast.c")));
    const std::string exe = build_driver(source);
    CHECK(run({exe, "--check-options"}).status == 0);
    write_file(source, read_file(source) + "/* an edit the driver has not seen */\n");
    const auto r = run({exe, "--check-options"});
    CHECK(r.status == 1);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::Contains("changed after this driver was built") && Catch::Contains("run make"));
    // --explain still runs, to say the same among its findings.
    CHECK(run({exe, "--explain", "--check-options"}).status == 0);
}
