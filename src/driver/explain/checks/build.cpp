// stale-build, build-flags: is the binary the student's latest code, and how was it
// compiled.
#include <ctime>
#include <fmt/format.h>
#include <sstream>

#include "checks.hpp"
#include "support.hpp"

namespace perflab::checks {
namespace {

std::string when(long t) {
    std::time_t tt = t;
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
    return buf;
}

}  // namespace

void stale_build(const BuildState& b, std::vector<Finding>& out) {
    const BuildInfo& info = b.build;
    Evidence ev{{"built from", info.kernels_path}, {"built at", when(info.build_time)}};
    if (!b.recorded.mtime) {
        Finding f = make(FindingId::stale_build, Severity::warning, {}, {}, "the kernels file this driver was built from is gone");
        f.evidence = ev;
        f.meaning = "./driver runs the code it was linked with; nothing shows which file holds that code now.";
        f.advice = "run make (or make KERNELS=path/to/kernels.c) to build from the file you are editing.";
        out.push_back(std::move(f));
    } else if (*b.recorded.mtime > info.build_time || b.recorded.sha256 != info.kernels_sha256) {
        Finding f = make(FindingId::stale_build, Severity::problem, {}, {}, "kernels.c changed after ./driver was built");
        f.evidence = ev;
        f.evidence.emplace_back("file modified at", when(*b.recorded.mtime));
        f.evidence.emplace_back("contents changed", b.recorded.sha256 != info.kernels_sha256 ? "yes" : "no (only touched)");
        f.meaning = "./driver still runs the code of its last build: edits made since are not what is measured.";
        f.advice = "run make, then run ./driver again.";
        out.push_back(std::move(f));
    }
    if (b.local && b.local->mtime) {
        const bool newer = *b.local->mtime > info.build_time;
        Finding f = make(FindingId::stale_build, newer ? Severity::problem : Severity::warning, {}, {},
                         newer ? "./kernels.c is newer than ./driver, which was built from another file"
                               : "./driver was built from another file than ./kernels.c");
        f.evidence = ev;
        f.evidence.emplace_back("./kernels.c", b.local->path);
        f.evidence.emplace_back("./kernels.c modified at", when(*b.local->mtime));
        f.meaning = "the figures are those of " + info.kernels_path + ", not of the kernels.c in this directory.";
        f.advice = "run make KERNELS=kernels.c (or make) in this directory.";
        out.push_back(std::move(f));
    }
    if (out.empty() || out.back().id != "stale-build") {
        Finding f = make(FindingId::stale_build, Severity::ok, {}, {}, "./driver was built from the current kernels file");
        f.evidence = ev;
        out.push_back(std::move(f));
    }
}

void build_flags(const BuildInfo& b, std::vector<Finding>& out) {
    std::istringstream in(b.kcflags);
    std::string flag, level = "-O0 (no -O flag)";
    std::vector<std::string> debug;
    while (in >> flag) {
        if (flag.rfind("-O", 0) == 0) level = flag == "-O" ? "-O1" : flag;
        if (flag.rfind("-fsanitize", 0) == 0 || flag == "-pg" || flag == "--coverage" || flag == "-fno-inline")
            debug.push_back(flag);
    }
    Severity s = Severity::ok;
    std::string title = "compiled with " + level, meaning, advice;
    if (level.rfind("-O0", 0) == 0) {
        s = Severity::problem;
        title = "kernels.c was compiled without optimisation (" + level + ")";
        meaning = "at -O0 every variable lives in memory and every RIDX is recomputed: each variant does several times "
                  "the work the graded -O2 build does, and the speedups compare unoptimised code.";
        advice = "build with the handout's flags: make clean && make (KCFLAGS=\"-O2 -Wall -g\").";
    } else if (level == "-Og" || level == "-O1" || !debug.empty()) {
        s = Severity::warning;
        title = "kernels.c was compiled as a debug build (" + level + (debug.empty() ? "" : " " + debug[0]) + ")";
        meaning = "the grader builds with -O2; figures from this build do not carry over.";
        advice = "build with the handout's flags: make clean && make (KCFLAGS=\"-O2 -Wall -g\").";
    }
    Finding f = make(FindingId::build_flags, s, {}, {}, title);
    f.evidence = {{"KCFLAGS", b.kcflags}, {"optimisation", level}};
    f.meaning = meaning;
    f.advice = advice;
    out.push_back(std::move(f));
}

}  // namespace perflab::checks
