// The student handout (make handout), as students and instructors use it: unpacked
// into a directory outside the repository, built with its own Makefile, run as
// ./driver, handed in with make handin and graded by the grader.
//
// Building the driver's C++ sources is the slow part (a minute or more on two
// cores), so one handout is built from scratch once, with CXXFLAGS=-O0 for the
// driver's C++ (kernels.c and the oracle keep the classic flags, which is what is
// checked); the NO_LIBPFM and baked-in variants start from a copy of its build/
// tree, and the handout's Makefile rebuilds the one object each setting affects.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "harness.hpp"
#include "driver/explain/checks/ids.hpp"

using namespace perflab::test;
namespace fs = std::filesystem;

namespace {

const std::string kDriverCxxFlags = "CXXFLAGS=-O0";
const std::vector<std::string> kQuick{"--dims", "64", "--max-samples", "3"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::string q(const std::string& s) {  // single-quoted for bash
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Temporary directories under /tmp, outside the repository, removed at exit
// (PERFLAB_KEEP_TMP=1 keeps them for a look).
struct TempDirs {
    std::vector<std::string> dirs;
    ~TempDirs() {
        if (std::getenv("PERFLAB_KEEP_TMP")) return;
        std::error_code ec;
        for (const auto& d : dirs) fs::remove_all(d, ec);
    }
};
TempDirs& temp_dirs() {
    static TempDirs t;
    return t;
}
std::string temp_dir(const std::string& tag) {
    std::string templ = (fs::temp_directory_path() / ("perflab-handout-" + tag + "-XXXXXX")).string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
    temp_dirs().dirs.push_back(templ);
    return templ;
}

// make with a clean environment for it: no jobserver or settings of an outer make.
CommandResult make_in(const std::string& dir, const std::vector<std::string>& args, const std::string& path_prefix = "") {
    std::string cmd = "cd " + q(dir) + " && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u NO_LIBPFM -u BASELINE -u POLICY";
    if (!path_prefix.empty()) cmd += " PATH=" + q(path_prefix) + ":\"$PATH\"";
    cmd += " make";
    for (const auto& a : args) cmd += " " + q(a);
    return sh(cmd);
}

// `make handout` in the repository, into `tar` (with BASELINE=... POLICY=... if given).
std::string make_handout(const std::string& tar, const std::vector<std::string>& extra = {}) {
    auto r = make_in(repo(""), with({"handout", "HANDOUT_TAR=" + tar}, extra));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    REQUIRE(fs::exists(tar));
    return tar;
}

const std::string& default_tar() {
    static const std::string tar = make_handout(repo("build/perflab-handout.tar"));
    return tar;
}

std::string unpack(const std::string& tar, const std::string& tag) {
    std::string dir = temp_dir(tag);
    auto r = sh("tar -xf " + q(tar) + " -C " + q(dir));
    INFO(r.err);
    REQUIRE(r.status == 0);
    return dir;
}

// A copy of a directory with timestamps kept, so make sees what is up to date.
std::string copy_of(const std::string& dir, const std::string& tag) {
    std::string copy = temp_dir(tag);
    auto r = sh("cp -a " + q(dir) + "/. " + q(copy) + "/");
    REQUIRE(r.status == 0);
    return copy;
}

struct Built {
    std::string dir, log;
};

// The default handout, unpacked and built from scratch with its own Makefile.
const Built& built_handout() {
    static const Built b = [] {
        Built out;
        out.dir = unpack(default_tar(), "built");
        auto r = make_in(out.dir, {"-j2", kDriverCxxFlags});
        out.log = r.out + r.err;
        INFO(out.log);
        REQUIRE(r.status == 0);
        REQUIRE(fs::exists(out.dir + "/driver"));
        return out;
    }();
    return b;
}

std::vector<std::string> tar_listing(const std::string& tar) {
    auto r = sh("tar -tf " + q(tar));
    REQUIRE(r.status == 0);
    std::vector<std::string> names;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string set_team(const std::string& kernels_c, const std::string& team) {
    std::string text = read_file(kernels_c);
    auto at = text.find("\"bovik\",");
    REQUIRE(at != std::string::npos);
    text.replace(at, 8, "\"" + team + "\",");
    write_file(kernels_c, text);
    return text;
}

}  // namespace

TEST_CASE("the handout holds the student's files, the driver's sources and the oracle, and no solution",
          "[handout]") {
    auto names = tar_listing(default_tar());
    std::set<std::string> listed(names.begin(), names.end());
    for (const char* top : {"kernels.c", "defs.h", "Makefile", "README", "perflab/mk/deps.sh",
                            "perflab/mk/link-host.sh", "perflab/team.c", "perflab/config.mk",
                            "perflab/src/host/kernel_host.c", "perflab/reference/naive.c",
                            "perflab/reference/oracle.h", "perflab/reference/speed_of_light.c"})
        CHECK(listed.count(top) == 1);
    // Every source the repository builds the driver core from, but its reference catalog.
    for (const char* part : {"src/common", "src/driver", "src/host"})
        for (const auto& e : fs::recursive_directory_iterator(repo(part))) {
            std::string ext = e.path().extension().string();
            if (ext == ".cpp" || ext == ".hpp" || ext == ".c" || ext == ".h") {
                std::string rel = fs::relative(e.path(), repo("src")).string();
                INFO(rel);
                CHECK(listed.count("perflab/src/" + rel) == 1);
            }
        }
    // Nothing named driver (the binary's name), nothing baked in by default, no solution.
    std::regex forbidden(R"((^|/)(driver|baseline\.toml|policy\.toml|solutions\.c|catalog\.cpp|reference\.h|)"
                         R"(rotate_[a-z_]*\.c|smooth_[a-z_]*\.c)$)");
    for (const auto& n : names) {
        INFO(n);
        CHECK_FALSE(std::regex_search(n, forbidden));
    }
    // The stock template and header themselves, and the scripts the repository uses.
    std::string dir = unpack(default_tar(), "listing");
    CHECK(read_file(dir + "/kernels.c") == read_file(repo("kernels/kernels.c")));
    CHECK(read_file(dir + "/defs.h") == read_file(repo("kernels/defs.h")));
    CHECK(read_file(dir + "/perflab/mk/link-host.sh") == read_file(repo("mk/link-host.sh")));
    CHECK(read_file(dir + "/perflab/mk/deps.sh") == read_file(repo("mk/deps.sh")));
    // One build of the driver: the handout's Makefile includes the repository's own rules.
    CHECK(read_file(dir + "/perflab/mk/compile.mk") == read_file(repo("mk/compile.mk")));
    CHECK(read_file(dir + "/perflab/src/driver/driver.mk") == read_file(repo("src/driver/driver.mk")));
    CHECK(read_file(dir + "/Makefile").find("include $(P)/mk/compile.mk $(P)/src/driver/driver.mk") !=
          std::string::npos);
    auto grep = sh("grep -rlE 'ref_(rotate|smooth)_' " + q(dir));
    CHECK(grep.out.empty());
}

TEST_CASE("the README documents every driver flag and every --explain finding", "[handout]") {
    const Built& b = built_handout();
    std::string readme = read_file(b.dir + "/README");
    auto help = run({b.dir + "/driver", "--help"});
    REQUIRE(help.status == 0);
    std::regex flag(R"((^|[ ,])(--?[a-zA-Z][a-zA-Z-]*))");
    std::set<std::string> flags;
    std::istringstream in(help.out);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("  -", 0) != 0) continue;
        std::string head = line.substr(0, line.find("  ", 2));
        for (std::sregex_iterator it(head.begin(), head.end(), flag), end; it != end; ++it) flags.insert((*it)[2]);
    }
    REQUIRE(flags.size() > 20);
    for (const auto& f : flags) {
        INFO(f);
        CHECK(std::regex_search(readme, std::regex("(^|[ ,(])" + f + "([ ,)]|$)", std::regex::multiline)));
    }
    // Every finding the checks can raise, from their table, but those that need the
    // reference kernels, which the handout does not have.
    for (const auto& kind : perflab::kFindingKinds) {
        if (kind.needs_reference) continue;
        INFO(kind.name);
        CHECK(std::regex_search(readme, std::regex("^    " + std::string(kind.name) + " ", std::regex::multiline)));
    }
    // The first install line names every package the handout's make requires.
    const std::string install = "    sudo apt-get install ";
    const auto at = readme.find(install);
    REQUIRE(at != std::string::npos);
    std::istringstream line(readme.substr(at + install.size(), readme.find('\n', at) - at - install.size()));
    std::set<std::string> listed;
    for (std::string pkg; line >> pkg;) listed.insert(pkg);
    std::istringstream packages(sh(q(repo("mk/lab-setting.sh")) + " LAB_DRIVER_PACKAGES").out);
    int required = 0;
    for (std::string pkg; packages >> pkg; ++required) {
        INFO(pkg);
        CHECK(listed.count(pkg) == 1);
    }
    CHECK(required > 5);
    CHECK(readme.find("libpfm4-dev") != std::string::npos);
}

TEST_CASE("the unpacked handout builds with its own Makefile, with the classic flags, and ./driver runs",
          "[handout]") {
    const Built& b = built_handout();
    // kernels.c exactly as the classic handout compiled it: gcc -O2 -Wall -g, no -std.
    auto lines = lines_starting_with(b.log, "gcc ");
    bool kernels_line = false;
    for (const auto& l : lines)
        if (l.find(" kernels.c") != std::string::npos) {
            CHECK(l == "gcc -O2 -Wall -g -c kernels.c -o build/kernels.o");
            kernels_line = true;
        }
    CHECK(kernels_line);
    CHECK(b.log.find("-std=c9") == std::string::npos);
    CHECK(b.log.find("-std=gnu") == std::string::npos);

    // The classic team check, then autograder mode.
    auto bovik = run({b.dir + "/driver"});
    CHECK(bovik.status == 1);
    CHECK(bovik.out.find("Please fill in the team struct in kernels.c.") != std::string::npos);
    auto g = run(with({b.dir + "/driver", "-g", "-t"}, kQuick));
    INFO(g.out << g.err);
    REQUIRE(g.status == 0);
    CHECK(std::regex_match(last_line(g.out), std::regex(R"(bestscores:[0-9]+\.[0-9]:[0-9]+\.[0-9]:)")));
    // Without a baked baseline the naive baseline is measured in the run; default policy.
    auto full = run(with({b.dir + "/driver", "-t"}, kQuick));
    REQUIRE(full.status == 0);
    CHECK(full.out.find("Summary of Your Best Scores:") != std::string::npos);
    auto score = lines_starting_with(full.out, "Score:");
    REQUIRE(score.size() == 1);
    CHECK(score[0].find("Total") != std::string::npos);
    CHECK(score[0].find("/100") != std::string::npos);
}

TEST_CASE("the handout's driver holds no student code, its hosts export nothing of their own, none has a solution",
          "[handout]") {
    const Built& b = built_handout();
    auto driver = sh("nm " + q(b.dir + "/driver"));
    REQUIRE(driver.status == 0);
    CHECK(driver.out.find("oracle_rotate") != std::string::npos);  // the checker's oracle is in it ...
    CHECK(driver.out.find("naive_rotate") == std::string::npos);   // ... kernels.c is not
    CHECK(driver.out.find("register_rotate_functions") == std::string::npos);
    for (const char* exe : {"/driver", "/kernel-host", "/reference-host"}) {
        auto all = sh("nm " + q(b.dir + exe));
        for (const char* name : {"ref_rotate_blocked", "ref_smooth_two_pass", "ref_rotate_unrolled", "ref_rotate_simd",
                                 "ref_smooth_simd", "ref_smooth_boundary_split"}) {
            INFO(exe << ": " << name);
            CHECK(all.out.find(name) == std::string::npos);
        }
    }
    // What the host runtime adds to a kernels file's names: the C surface and nothing else.
    auto globals = sh("nm --defined-only -g " + q(b.dir + "/build/host-runtime.o") + " | awk '{print $3}'");
    const std::set<std::string> allowed{"main", "add_rotate_function", "add_smooth_function", "perflab_host_arg"};
    std::istringstream g(globals.out);
    int count = 0;
    for (std::string n; g >> n; ++count) {
        INFO(n);
        CHECK(allowed.count(n) == 1);
    }
    CHECK(count == int(allowed.size()));
}

TEST_CASE("without libpfm4 (make NO_LIBPFM=1) the handout's driver builds, times and says counters are not built in",
          "[handout]") {
    std::string dir = copy_of(built_handout().dir, "nopfm");
    auto r = make_in(dir, {"NO_LIBPFM=1", kDriverCxxFlags});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("-DPERFLAB_NO_LIBPFM") != std::string::npos);
    CHECK(r.out.find("-lpfm") == std::string::npos);
    auto ldd = sh("ldd " + q(dir + "/driver"));
    CHECK(ldd.out.find("libpfm") == std::string::npos);
    auto c = run(with({dir + "/driver", "-t", "--counters", "--kernel", "rotate"}, kQuick));
    INFO(c.out << c.err);
    CHECK(c.status == 0);
    CHECK((c.out + c.err).find("counters are not built in") != std::string::npos);
    CHECK(c.out.find("Summary of Your Best Scores:") != std::string::npos);
    // The default build does link libpfm4 here (it is installed), so the switch is what made the difference.
    CHECK(sh("ldd " + q(built_handout().dir + "/driver")).out.find("libpfm") != std::string::npos);
}

TEST_CASE("a handout with a baked-in baseline and policy scores with them", "[handout]") {
    std::string work = temp_dir("bake-files");
    // A baseline must cover the dimensions a plain ./driver runs, or make handout refuses it.
    write_file(work + "/short-baseline.toml", "[rotate.cpe]\n64 = 1000.0\n\n[smooth.cpe]\n64 = 2000.0\n");
    auto refused = make_in(repo(""), {"handout", "HANDOUT_TAR=" + work + "/refused.tar",
                                      "BASELINE=" + work + "/short-baseline.toml"});
    INFO(refused.err);
    CHECK(refused.status != 0);
    CHECK(refused.err.find("BASELINE=" + work + "/short-baseline.toml") != std::string::npos);
    CHECK(refused.err.find("128") != std::string::npos);
    CHECK_FALSE(fs::exists(work + "/refused.tar"));
    // A policy every student's ./driver would refuse is refused here, by the same code.
    write_file(work + "/bad-policy.toml", "[rotate]\nmax_points = 50\ncurve = [[3.0, 0], [1.0, 50]]\n");
    auto bad_policy = make_in(repo(""), {"handout", "HANDOUT_TAR=" + work + "/refused.tar",
                                         "POLICY=" + work + "/bad-policy.toml"});
    INFO(bad_policy.err);
    CHECK(bad_policy.status != 0);
    CHECK(bad_policy.err.find("make handout: the handout's ./driver would refuse POLICY=" + work + "/bad-policy.toml: ") !=
          std::string::npos);
    CHECK(bad_policy.err.find("curve") != std::string::npos);
    CHECK_FALSE(fs::exists(work + "/refused.tar"));
    write_file(work + "/grading-baseline.toml", "[rotate.cpe]\n64 = 1000.0\n128 = 1000.0\n256 = 1000.0\n512 = 1000.0\n\n"
                                                "[smooth.cpe]\n64 = 2000.0\n128 = 2000.0\n256 = 2000.0\n512 = 2000.0\n");
    write_file(work + "/grading-policy.toml",
               "[rotate]\nmax_points = 7\ncurve = [[1.0, 0], [2.0, 7]]\n\n"
               "[smooth]\nmax_points = 11\ncurve = [[1.0, 0], [2.0, 11]]\n");
    std::string tar = make_handout(work + "/baked.tar", {"BASELINE=" + work + "/grading-baseline.toml",
                                                          "POLICY=" + work + "/grading-policy.toml"});
    std::string dir = unpack(tar, "baked");
    CHECK(read_file(dir + "/baseline.toml") == read_file(work + "/grading-baseline.toml"));
    CHECK(read_file(dir + "/policy.toml") == read_file(work + "/grading-policy.toml"));

    // Start from the default handout's objects: only options.cpp depends on what is baked.
    REQUIRE(sh("cp -a " + q(built_handout().dir + "/build") + " " + q(dir + "/")).status == 0);
    auto r = make_in(dir, {kDriverCxxFlags});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("-DPERFLAB_DEFAULT_BASELINE='\"baseline.toml\"'") != std::string::npos);
    CHECK(r.out.find("-DPERFLAB_DEFAULT_POLICY='\"policy.toml\"'") != std::string::npos);

    // Run from elsewhere: the files are found beside the driver, not in the working directory.
    auto d = sh("cd / && " + q(dir + "/driver") + " -t --dims 64 --max-samples 3");
    INFO(d.out << d.err);
    REQUIRE(d.status == 0);
    CHECK(lines_starting_with(d.out, "Baseline CPEs\t1000.0").size() == 2);  // naive_rotate and rotate
    CHECK(lines_starting_with(d.out, "Baseline CPEs\t2000.0").size() == 2);
    auto score = lines_starting_with(d.out, "Score:");
    REQUIRE(score.size() == 1);
    CHECK(score[0] == "Score: Rotate 7.0/7  Smooth 11.0/11  Total 18.0/18");
    // --measured-baseline measures instead, the policy stays.
    auto m = run({dir + "/driver", "-t", "--measured-baseline", "--dims", "64", "--max-samples", "3"});
    REQUIRE(m.status == 0);
    CHECK(lines_starting_with(m.out, "Baseline CPEs\t1000.0").empty());
    REQUIRE(lines_starting_with(m.out, "Score:").size() == 1);
    CHECK(lines_starting_with(m.out, "Score:")[0].find("Total 18.0/18") == std::string::npos);
    CHECK(lines_starting_with(m.out, "Score:")[0].find("/18") != std::string::npos);
}

TEST_CASE("make handin packs kernels.c as <team>-kernels.c, refuses bovik, and the grader takes it", "[handout]") {
    std::string dir = copy_of(built_handout().dir, "handin");
    auto refused = make_in(dir, {"handin"});
    CHECK(refused.status != 0);
    CHECK(refused.err.find("make handin: fill in the team struct in kernels.c first: the team is still \"bovik\"") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/handin.tar"));

    std::string text = set_team(dir + "/kernels.c", " ab12+cd34 x/y ");
    auto r = make_in(dir, {"handin"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const std::string id = "ab12_cd34_x_y";
    CHECK(r.out.find("wrote handin.tar holding " + id + "-kernels.c") != std::string::npos);
    REQUIRE(fs::exists(dir + "/handin.tar"));
    auto names = tar_listing(dir + "/handin.tar");
    REQUIRE(names.size() == 1);
    CHECK(names[0] == id + "-kernels.c");
    CHECK(std::regex_match(names[0], std::regex(R"([A-Za-z0-9_][A-Za-z0-9._-]*-kernels\.c)")));
    CHECK(sh("tar -xOf " + q(dir + "/handin.tar")).out == text);

    // The grader (./grader, built before the tests) finds and grades it under that ID, as an
    // instructor does after unpacking every student's handin.tar into one directory.
    std::string grader = repo("grader");
    REQUIRE(fs::is_regular_file(grader));
    std::string handins = temp_dir("handins"), out = temp_dir("graded");
    REQUIRE(sh("tar -xf " + q(dir + "/handin.tar") + " -C " + q(handins)).status == 0);
    auto g = run({grader, "grade", handins, "--out", out + "/results", "--trials", "1", "--driver-args",
                  "--dims 64 --max-samples 3"});
    INFO(g.out << g.err);
    REQUIRE(g.status == 0);
    auto results = read_file(out + "/results/results.jsonl");
    INFO(results);
    auto records = lines_starting_with(results, "{");
    REQUIRE(records.size() == 1);
    CHECK(records[0].find("\"id\":\"" + id + "\"") != std::string::npos);
    CHECK(records[0].find("\"status\":\"ok\"") != std::string::npos);
}

TEST_CASE("the handout's make stops with the exact install command when a package is missing", "[handout]") {
    std::string dir = unpack(default_tar(), "deps");
    // Not root and no password-less sudo, as on a student's machine.
    std::string bin = temp_dir("fakebin");
    write_file(bin + "/id", "#!/bin/sh\necho 1000\n");
    write_file(bin + "/sudo", "#!/bin/sh\nexit 1\n");
    REQUIRE(sh("chmod +x " + q(bin + "/id") + " " + q(bin + "/sudo")).status == 0);
    auto r = make_in(dir, {"DEPS_PACKAGES=g++ libfmt-dev perflab-no-such-package"}, bin);
    INFO(r.out << r.err);
    CHECK(r.status != 0);
    CHECK(r.err.find("perflab: missing Debian packages: perflab-no-such-package") != std::string::npos);
    CHECK(r.err.find("perflab: install them with: sudo apt-get update && sudo apt-get install -y --no-install-recommends "
                     "perflab-no-such-package") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/build/obj"));  // nothing compiled before the check
    CHECK_FALSE(fs::exists(dir + "/driver"));
}
