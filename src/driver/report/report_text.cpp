#include <algorithm>
#include <fmt/format.h>

#include "machine_load.hpp"
#include "report.hpp"

namespace perflab {
namespace {

std::string rgb(const pixel& p) { return fmt::format("{{{},{},{}}}", p.red, p.green, p.blue); }

std::string cache_line(const CacheLevel& c) {
    return fmt::format("L{} {} {} KiB{}{}{} ({}{})", c.level, c.type, c.size_bytes >> 10,
                       c.ways ? fmt::format(" {}-way", c.ways) : "", c.line_bytes ? fmt::format(" {} B lines", c.line_bytes) : "",
                       sharing_text(c.shared_cpus), c.source, c.plausible ? "" : "; implausible, ignored");
}

}  // namespace

void TextReporter::start(const RunResult& run) {
    kbest_ = run.config.kbest;
    if (run.team) {
        const Team& t = *run.team;
        fmt::print(out_, "Teamname: {}\nMember 1: {}\nEmail 1: {}\n", t.team, t.name1, t.email1);
        if (!t.name2.empty()) fmt::print(out_, "Member 2: {}\nEmail 2: {}\n", t.name2, t.email2);
        fmt::print(out_, "\n");
    }
    if (options_.verbose) {
        fmt::print(out_, "Clock: {}\n", run.clock.description);
        if (run.clock.pinned_cpu >= 0)
            fmt::print(out_, "Pinned to CPU {} while timing\n", run.clock.pinned_cpu);
        else
            fmt::print(out_, "Not pinned ({}): figures may include migrations\n", run.clock.pin_error);
        fmt::print(out_, "CPU: {} ({} logical CPUs)\n", run.machine.cpu_model, run.machine.logical_cpus);
        for (const auto& c : run.machine.caches) fmt::print(out_, "Cache: {}\n", cache_line(c));
        fmt::print(out_, "Cache cleared before each sample by touching {} KiB\n", run.config.cache_clear_bytes >> 10);
        fmt::print(out_, "K-best: K={} epsilon={} max samples={}; inputs {}; baseline {}\n\n", run.config.kbest.k,
                   run.config.kbest.epsilon, run.config.kbest.max_samples,
                   run.config.seed ? fmt::format("from seed {}", *run.config.seed) : "from a secret key",
                   run.config.baseline_mode);
    }
    if (auto line = cpu_choice_line(run)) fmt::print(out_, "{}\n\n", *line);
    // The model's figures mean nothing without the machine they are for.
    if (run.model)
        fmt::print(out_, "Model machine (docs/model.md): {}\n{}\n\n", describe_machine_model(*run.model),
                   run.basis == Basis::model
                       ? "The points are for the speedups on the model machine (the policy's basis), as the grader gives them."
                       : "The points are for the timed speedups (the policy's basis); the model's are shown beside them.");
    // The (sim) rows mean nothing without the caches they were simulated on.
    if (!run.simulation_geometry.empty()) fmt::print(out_, "Simulated caches: {}\n\n", run.simulation_geometry);
    std::fflush(out_);
}

// Flushed after each part: the student watches the tables appear while the
// next variant is measured.
void TextReporter::variant_done(const KernelResult& kernel, const VariantResult& v) {
    variant_table(kernel, v);
    std::fflush(out_);
}

void TextReporter::finish(const RunResult& run) {
    summary(run);
    std::fflush(out_);
}

void TextReporter::kernel_started(const KernelResult& kernel) {
    if (!kernel.notice.empty()) fmt::print(out_, "{}: {}\n\n", kernel_title(kernel.kernel), kernel.notice);
    if (!kernel.speed_of_light) return;
    std::string dims = "Dim\t", cpes = "memcpy CPEs";
    for (const auto& d : kernel.speed_of_light->dims) {
        dims += fmt::format("\t{}", d.dim);
        cpes += fmt::format("\t{:.2f}{}", d.cpe, d.converged ? "" : "*");
    }
    fmt::print(out_, "{}: Speed of light = memcpy of the same bytes (not scored):\n{}\n{}\n",
               kernel_title(kernel.kernel), dims, cpes);
    footnotes(kernel.speed_of_light->dims);
    fmt::print(out_, "\n");
}

// Which rows the speedup divides, said once per run for each kind of table: a reader
// who divides the fastest CPEs of a paired table gets another figure.
void TextReporter::legend(bool paired) {
    bool& said = paired ? explained_paired_ : explained_fixed_;
    if (said) return;
    said = true;
    fmt::print(out_, "{}\n",
               paired ? "Speedup = Baseline paired / Your paired: the middle round of those timed in turns with the "
                        "oracle; Your and Baseline CPEs are each one's fastest sample."
                      : "Speedup = Baseline CPEs / Your CPEs (the baseline is fixed; Your CPEs is the fastest sample).");
}

void TextReporter::footnotes(const std::vector<DimResult>& dims) {
    auto any = [&](auto&& pred) { return std::any_of(dims.begin(), dims.end(), pred); };
    // A figure that kept the call's cost is not converged either; its own note says why.
    auto unsure = [](const DimResult& d) {
        return !d.converged && d.call_cost_resolved && d.speedup_call_cost_resolved;
    };
    const bool unsure_paired = any([&](const DimResult& d) { return unsure(d) && d.speedup_high > 0; });
    const bool unsure_alone = any([&](const DimResult& d) { return unsure(d) && d.speedup_high <= 0; });
    const bool unresolved = any([](const DimResult& d) { return !d.call_cost_resolved; });
    const bool speedup_unresolved =
        any([](const DimResult& d) { return d.call_cost_resolved && !d.speedup_call_cost_resolved; });
    auto once = [&](bool needed, bool& said, const std::string& text) {
        if (!needed || said) return;
        fmt::print(out_, "{}\n", text);
        said = true;
    };
    // One sentence each: what happened to this figure, and what to do. Under -g the
    // grader runs the trials: a student cannot rerun them, so no remedy is offered.
    const char* rerun = options_.autograder ? "." : "; rerun when the machine is quieter.";
    once(unsure_paired, explained_unconverged_,
         fmt::format("* unsure: the rounds beside the oracle still disagreed by more than {:g}% when sampling stopped{}",
                     100 * kbest_.ratio_tolerance, rerun));
    once(unsure_alone, explained_unconverged_alone_,
         fmt::format("* unsure: the fastest samples never agreed within {:g}%{}", 100 * kbest_.epsilon, rerun));
    once(unresolved, explained_unresolved_,
         "* includes the call: at this size the kernel is too quick to tell from the cost of calling it, so the "
         "figure counts that cost too; judge your code by the larger sizes.");
    once(speedup_unresolved, explained_speedup_unresolved_,
         "* speedup includes the call: at this size the kernel is too quick to tell from the cost of calling it, so "
         "the speedup compares whole calls and reads nearer 1 than your code is; judge it by the larger sizes.");
}

void TextReporter::variant_table(const KernelResult& kernel, const VariantResult& v) {
    fmt::print(out_, "{}: Version = {}:\n", kernel_title(kernel.kernel), v.name);
    if (v.failure) {
        const CheckFailure& f = *v.failure;
        if (f.during_timing)
            fmt::print(out_, "\nA timed call, on fresh input, gave a wrong result (a kernel that replays an "
                             "earlier answer fails here):");
        if (f.first && (f.kind == CheckFailure::Kind::wrong_result || f.kind == CheckFailure::Kind::unwritten)) {
            fmt::print(out_, "\nERROR: Dimension={}, {} errors\n", f.dim, f.wrong_pixels);
            if (f.unwritten_pixels)
                fmt::print(out_, "{} of them left unwritten (still holding the poison the driver filled dst with)\n",
                           f.unwritten_pixels);
            fmt::print(out_, "You have dst[{}][{}].{{red,green,blue}} = {}\n", f.first->row, f.first->col,
                       rgb(f.first->actual));
            fmt::print(out_, "It should be dst[{}][{}].{{red,green,blue}} = {}\n\n", f.first->row, f.first->col,
                       rgb(f.first->expected));
        } else {
            fmt::print(out_, "\nERROR: Dimension={}, {}\n\n", f.dim, f.detail);
        }
        return;
    }
    std::string dims = "Dim\t", cpes = "Your CPEs", base = "Baseline CPEs", speed = "Speedup\t", samples = "Samples\t";
    std::string typical = "Your paired", typical_base = "Baseline paired";
    const bool paired = std::any_of(v.dims.begin(), v.dims.end(), [](const DimResult& d) { return d.typical_cpe > 0; });
    // The speedup comes from the same samples as the CPE, so it is as unsure; the
    // mean is as unsure as its least certain dimension.
    for (const auto& d : v.dims) {
        const char* mark = d.converged ? "" : "*";
        dims += fmt::format("\t{}", d.dim);
        cpes += fmt::format("\t{:.1f}{}", d.cpe, mark);
        base += fmt::format("\t{:.1f}", d.baseline_cpe);
        typical += d.typical_cpe > 0 ? fmt::format("\t{:.1f}", d.typical_cpe) : "\t-";
        typical_base += d.typical_cpe > 0 ? fmt::format("\t{:.1f}", d.typical_baseline_cpe) : "\t-";
        speed += fmt::format("\t{:.1f}{}", d.speedup, mark);
        samples += fmt::format("\t{}", d.samples);
    }
    const bool mean_unsure = std::any_of(v.dims.begin(), v.dims.end(), [](const DimResult& d) { return !d.converged; });
    fmt::print(out_, "{}\tMean\n{}\n{}\n", dims, cpes, base);
    if (paired) fmt::print(out_, "{}\n{}\n", typical, typical_base);
    fmt::print(out_, "{}\t{:.1f}{}\n", speed, v.mean_speedup, mean_unsure ? "*" : "");
    if (paired || std::any_of(v.dims.begin(), v.dims.end(), [](const DimResult& d) { return d.baseline_cpe > 0; }))
        legend(paired);
    if (kernel.speed_of_light) {
        // Where either figure still holds the call's own cost, their ratio says
        // nothing about the kernel: a memcpy at 64 timed as its call once read as
        // five times any kernel's CPE.
        std::string row = "x memcpy";
        for (std::size_t i = 0; i < v.dims.size() && i < kernel.speed_of_light->dims.size(); ++i) {
            const DimResult &mine = v.dims[i], &copy = kernel.speed_of_light->dims[i];
            row += mine.call_cost_resolved && copy.call_cost_resolved ? fmt::format("\t{:.1f}", mine.cpe / copy.cpe)
                                                                      : std::string("\t-");
        }
        fmt::print(out_, "{}\n", row);
    }
    if (options_.verbose) fmt::print(out_, "{}\n", samples);
    // Counter and simulation rows, one per event, under the classic table.
    for (auto member : {&DimResult::counters, &DimResult::simulated}) {
        if (v.dims.empty() || (v.dims.front().*member).empty()) continue;
        for (std::size_t e = 0; e < (v.dims.front().*member).size(); ++e) {
            std::string row = (v.dims.front().*member)[e].first;
            for (const auto& d : v.dims)
                row += e < (d.*member).size() ? fmt::format("\t{:.2f}", (d.*member)[e].second) : "\t-";
            fmt::print(out_, "{}\n", row);
        }
    }
    model_rows(v);
    footnotes(v.dims);
    fmt::print(out_, "\n");
}

void TextReporter::model_rows(const VariantResult& v) {
    if (v.model_flag) {
        fmt::print(out_, "Model: no figures: {}\n", *v.model_flag);
        return;
    }
    if (v.dims.empty() || !v.dims.front().model) return;
    std::string cycles = "Model cyc/px", speedup = "Model speedup";
    for (const auto& d : v.dims) {
        cycles += d.model ? fmt::format("\t{:.2f}", d.model->cycles_per_pixel) : "\t-";
        speedup += d.model ? fmt::format("\t{:.2f}", d.model->speedup) : "\t-";
    }
    if (v.model_mean_speedup) speedup += fmt::format("\t{:.2f}", *v.model_mean_speedup);
    fmt::print(out_, "{}\n{}\n", cycles, speedup);
}

void TextReporter::summary(const RunResult& run) {
    // The best speedup on the policy's basis.
    auto best_mean = [&](Kernel k) {
        const KernelResult* kr = run.find(k);
        if (run.basis == Basis::timing || !kr) return kr && kr->best ? kr->variants[*kr->best].mean_speedup : 0.0;
        double best = 0;
        for (const auto& v : kr->variants) best = std::max(best, v.model_mean_speedup.value_or(0.0));
        return best;
    };
    if (options_.autograder) {
        fmt::print(out_, "\nbestscores:{:.1f}:{:.1f}:\n", best_mean(Kernel::rotate), best_mean(Kernel::smooth));
        return;
    }
    if (auto line = busy_line(run)) fmt::print(out_, "{}\n\n", *line);
    fmt::print(out_, "Summary of Your Best Scores:\n");
    for (const auto& kr : run.kernels) {
        if (kr.best)
            fmt::print(out_, "  {}: {:.1f} ({})\n", kernel_title(kr.kernel), kr.variants[*kr.best].mean_speedup,
                       kr.variants[*kr.best].name);
        else
            fmt::print(out_, "  {}: 0.0 ({})\n", kernel_title(kr.kernel),
                       kr.variants.empty() ? "no variant timed" : "no variant passed the check");
    }
    if (!options_.show_score || run.kernels.empty()) return;
    std::string line = run.basis == Basis::model ? "Score (model machine):" : "Score:", untimed;
    int untimed_count = 0;
    double max_total = 0;
    for (const auto& kr : run.kernels) {
        if (!kr.points) {
            line += fmt::format(" {} not scored ", kernel_title(kr.kernel));
            untimed += fmt::format("{}{}()", untimed.empty() ? "" : " and ", kernel_name(kr.kernel));
            ++untimed_count;
            continue;
        }
        line += fmt::format(" {} {:.1f}/{:g} ", kernel_title(kr.kernel), *kr.points, kr.max_points);
        max_total += kr.max_points;
    }
    if (run.total_points) line += fmt::format(" Total {:.1f}/{:g}", *run.total_points, max_total);
    // Points are the grader's, and it times only rotate() and smooth().
    if (untimed_count > 0)
        line += fmt::format("{}({} not timed: drop -f/--variant to score {})", line.back() == ' ' ? "" : " ", untimed,
                            untimed_count > 1 ? "them" : "it");
    fmt::print(out_, "{}\n", line);
    // Asked for beside a timing grade: what the same code would get on the model.
    if (run.model && run.basis == Basis::timing) {
        std::string model_line = "Model score (if the basis were the model):";
        for (const auto& kr : run.kernels)
            for (const auto& v : kr.variants)
                if (v.graded)
                    model_line += v.model_points ? fmt::format(" {} {:.1f}/{:g} ", kernel_title(kr.kernel), *v.model_points, kr.max_points)
                                                 : fmt::format(" {} none ", kernel_title(kr.kernel));
        fmt::print(out_, "{}\n", model_line);
    }
}

}  // namespace perflab
