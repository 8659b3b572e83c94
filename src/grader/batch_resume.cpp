#include "batch_resume.hpp"

#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <stdexcept>

#include "common/counted.hpp"
#include "handin_digest.hpp"

namespace perflab::grader {

namespace {
std::string local_time(std::int64_t ns) {
    std::time_t t = std::time_t(ns / 1000000000);
    char text[64] = "";
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
    return text;
}

std::string listed(const std::vector<std::string>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size() && i < 10; ++i) out += (i ? ", " : "") + ids[i];
    return ids.size() > 10 ? out + fmt::format(" and {} more", ids.size() - 10) : out;
}
}  // namespace

ResumePlan plan_resume(const std::string& out_dir, const std::vector<Handin>& handins, const ResultsStore& store,
                       const BatchSettings& s) {
    ResumePlan plan;
    const BatchState before = read_batch_state(out_dir);
    plan.state = grading_settings(s);
    const bool same_settings = before.fingerprint == plan.state.fingerprint;
    const std::vector<Record> records = store.records();
    // A DIR from before fingerprints has none to compare: its records are kept.
    if (!s.force && !records.empty() && !before.fingerprint.empty() && !same_settings)
        throw std::runtime_error(fmt::format("{} was graded with other settings ({}): use --force to regrade "
                                             "everything, or another --out",
                                             out_dir, differing_settings(before.settings, plan.state.settings)));
    plan.forced = s.force;
    if (s.force) {
        plan.state.force_started_ns = same_settings && before.force_started_ns ? before.force_started_ns : now_ns();
        plan.resumed_force = plan.state.force_started_ns == before.force_started_ns;
        if (plan.resumed_force)
            plan.notes.push_back(fmt::format("resuming the --force regrade started {}: records graded since are kept",
                                             local_time(before.force_started_ns)));
    } else if (same_settings) {
        // Kept until a forced run finishes it, so `--force` again still resumes it.
        plan.state.force_started_ns = before.force_started_ns;
    }

    std::set<std::string> present;
    std::vector<std::string> changed, failed;
    std::size_t kept = 0;
    for (const auto& h : handins) {
        present.insert(h.id);
        const Record* r = store.find(h.id);
        bool regrade = !r;
        if (r && s.force && r->graded_at_ns < plan.state.force_started_ns) {
            regrade = true;
        } else if (r && r->status == Status::internal_error) {
            regrade = true;
            failed.push_back(h.id);
        } else if (r && !r->handin_sha256.empty() && r->handin_sha256 != handin_sha256(h)) {
            regrade = true;
            changed.push_back(h.id);
        }
        if (regrade) plan.todo.push_back(h);
        if (regrade && r) plan.stale.insert(h.id);
        if (!regrade) ++kept;
    }
    // A record whose hand-in is not in HANDINS now stays: a HANDINS mistyped or
    // pointed at a subset must not erase grades already earned.
    std::vector<std::string> gone;
    for (const auto& r : records)
        if (!present.count(r.id)) gone.push_back(r.id);

    if (kept)
        plan.notes.push_back(fmt::format("{} of {} already graded in {} (--force regrades {})", kept,
                                         counted(handins.size(), "hand-in"), out_dir, kept == 1 ? "it" : "them"));
    if (!failed.empty())
        plan.notes.push_back(fmt::format("regrading {} whose record is an internal-error: {}",
                                         counted(failed.size(), "hand-in"), listed(failed)));
    if (!changed.empty())
        plan.notes.push_back(fmt::format("regrading {} changed since graded: {}", counted(changed.size(), "hand-in"),
                                         listed(changed)));
    if (!gone.empty())
        plan.notes.push_back(fmt::format("keeping {} whose hand-in is not in the hand-ins directory: {} "
                                         "(grade into another --out to leave them out)",
                                         counted(gone.size(), "record"), listed(gone)));
    return plan;
}

void start_resumed(const std::string& out_dir, ResultsStore& store, const ResumePlan& plan) {
    // The forced start first: a kill between the two then resumes the forced
    // regrade rather than forgetting it was one.
    save_batch_state(out_dir, plan.state);
    store.forget(plan.stale);
}

int finish_batch(const std::string& out_dir, const ResultsStore& store, const ResumePlan& plan) {
    BatchState state = plan.state;
    if (plan.forced) state.force_started_ns = 0;
    save_batch_state(out_dir, state);
    std::vector<std::string> failed;
    for (const auto& r : store.records())
        if (r.status == Status::internal_error) failed.push_back(r.id);
    if (failed.empty()) return 0;
    std::fprintf(stderr,
                 "%s ended internal-error, the grader's own failure (%s): see their reasons in %s/gradebook.csv, "
                 "fix the cause and run the same command again to regrade them\n",
                 counted(failed.size(), "hand-in").c_str(), listed(failed).c_str(), out_dir.c_str());
    return 1;
}

}  // namespace perflab::grader
