#include "slurm.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/host_name.hpp"
#include "common/scratch_dir.hpp"
#include "batch_lock.hpp"
#include "batch_resume.hpp"
#include "batch_run.hpp"
#include "calibration.hpp"
#include "progress.hpp"
#include "results_store.hpp"
#include "slurm_answers.hpp"
#include "slurm_baselines.hpp"
#include "slurm_state.hpp"
#include "settings_json.hpp"
#include "common/subprocess.hpp"
#include "common/toml_file.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

void SlurmFiles::create() const {
    for (const auto& d : {records_dir(), baselines_dir(), logs_dir(), dir() + "/plans", out_ + "/baselines"})
        fs::create_directories(d);
}

void require_slurm_tools() {
    for (const char* tool : {"sbatch", "squeue", "scontrol", "scancel"}) {
        if (!find_executable(tool))
            throw std::runtime_error(fmt::format("--slurm needs Slurm's {} on PATH: install slurm-client (apt-get install "
                                                 "slurm-client) on this host, or grade here without --slurm",
                                                 tool));
    }
}

namespace {

// What scontrol says of a job slurmctld no longer holds (past MinJobAge), as
// opposed to a controller it could not reach.
bool forgotten_job(const std::string& scontrol_output) {
    return scontrol_output.find("Invalid job id specified") != std::string::npos;
}

Finished run_tool(const std::vector<std::string>& argv, double seconds = 60) {
    // Slurm's commands retry a busy controller themselves; a minute is plenty.
    return spawn(command(argv, seconds, 4 << 20));
}

// The most tasks one job array may have here; 0 when scontrol does not say.
std::size_t max_array_size() {
    Finished f = run_tool({"scontrol", "show", "config"});
    std::smatch m;
    static const std::regex line(R"(MaxArraySize\s*=\s*(\d+))");
    if (!f.exited_ok() || !std::regex_search(f.output, m, line)) return 0;
    return std::stoul(m[1]);
}

std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    return line.empty() ? "no output" : line;
}

std::string last_line_of_file(const std::string& path) {
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// What a task grades with: the grading settings, where perflab lives, the
// policy's file, the fixed baseline ("" none) and the jobs asked for.
json plan_settings(const BatchSettings& b, const std::string& policy_toml) {
    const GradeSettings& g = b.grade;
    json j = grade_settings_json(g);
    j["jobs"] = b.jobs;
    j["perflab"] = fs::absolute(g.layout.root).string();
    j["policy"] = policy_toml;
    j["fixed_baseline"] = b.fixed_baseline ? fs::absolute(*b.fixed_baseline).string() : "";
    return j;
}

class SlurmBatch : public BatchBackend {
public:
    SlurmBatch(const BatchSettings& b, const SlurmSettings& s)
        : b_(b), s_(s), out_(fs::absolute(b.out_dir).string()), files_(out_) {}

    void recover(BatchRun& run) override;
    void before_start(BatchRun& run) override;
    void grade(BatchRun& run) override;

private:
    struct Task {
        int index;
        std::vector<std::string> ids;
        bool handled = false;  // its missing records were retried or given up on
    };
    struct Submission {
        int number;
        std::string job;
        std::vector<Task> tasks;
    };

    void merge_records();
    bool submit(const std::vector<std::string>& ids);
    // submit's steps: the tasks and their shards, the plan the tasks read, the
    // script sbatch runs, and sbatch's command line.
    Submission shard(int number, const std::vector<std::string>& ids, json& shards) const;
    void write_plan(int number, const json& shards);
    void write_script(int number);
    std::vector<std::string> sbatch_argv(int number, std::size_t tasks) const;
    void cancel(const std::string& job);
    bool poll(std::size_t& running, std::size_t& pending);
    // How each task of a job ended, by task; nullopt while Slurm cannot say.
    using JobEnds = std::optional<std::map<int, TaskEnd>>;
    std::optional<TaskEnd> task_end(const std::string& job, int task, std::map<std::string, JobEnds>& cache);
    // Each note once per run; KEY, when given, is what makes two notes the same.
    void tell_once(const std::string& note, const std::string& key = "");
    void failed(const Submission& sub, const Task& t, const TaskEnd& end);
    void write_batch_json();
    void save_state();
    int time_minutes() const;

    const BatchSettings& b_;
    const SlurmSettings& s_;
    std::string out_;
    SlurmFiles files_;
    BatchRun* run_ = nullptr;
    std::map<std::string, Handin> handins_;
    std::set<std::string> live_jobs_;  // arrays of an earlier run that Slurm still runs or queues
    std::vector<Submission> active_;
    std::vector<std::string> retry_;
    std::set<std::string> failed_ids_;
    std::set<std::string> told_;          // notes the instructor has been given once already
    std::set<std::string> known_arrays_;  // arrays scontrol still had a record of at the last look
    SlurmState state_;
    json batch_report_;  // as last written to batch.json
};

int SlurmBatch::time_minutes() const {
    if (s_.time_minutes > 0) return s_.time_minutes;
    const auto& g = b_.grade;
    // Worst case per hand-in (compile, then every trial to its wall limit), plus
    // the task's baseline measurement, plus room for Slurm to start the task.
    double seconds = double(s_.shard_size) * (g.build.compile_seconds + g.most_trials() * g.sandbox.wall_seconds) +
                     g.sandbox.wall_seconds + 120;
    return int(std::ceil(seconds / 60));
}

void SlurmBatch::save_state() { write_slurm_state(files_.state(), state_); }

void SlurmBatch::merge_records() {
    // Tasks write records/ID.json atomically; committing one here is what a local
    // batch does after grade_handin, then the file goes (a crash in between
    // leaves a file whose ID the store already has, which is dropped next time).
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(files_.records_dir(), ec)) {
        if (e.path().extension() != ".json") continue;
        json j = json::parse(read_text_file(e.path().string(), "record"), nullptr, false);
        if (j.is_discarded()) continue;  // never happens with atomic writes; a foreign file stays for a human
        // The record carries the digest of the file its task graded, which a hand-in
        // replaced since no longer matches: the next plan then regrades it.
        Graded g{record_from_json(j.at("record")), j.at("feedback").get<std::string>(), std::nullopt};
        if (j.contains("report") && j["report"].is_object()) g.report = j["report"];
        bool ours = handins_.count(g.record.id) > 0;
        if (ours && !run_->store.has(g.record.id)) run_->commit(g);
        fs::remove(e.path(), ec);
    }
}

void SlurmBatch::tell_once(const std::string& note, const std::string& key) {
    if (told_.insert(key.empty() ? note : key).second) run_->progress->note(note);
}

// Returns false when sbatch refused a job it has accepted before with the same
// settings: the controller is down or busy, which waiting mends; the caller
// tries again at its next poll.
SlurmBatch::Submission SlurmBatch::shard(int number, const std::vector<std::string>& ids, json& shards) const {
    Submission sub{number, "", {}};
    for (std::size_t i = 0; i < ids.size(); i += s_.shard_size) {
        Task t{int(sub.tasks.size()), {}};
        json shard = json::array();
        for (std::size_t k = i; k < std::min(ids.size(), i + s_.shard_size); ++k) {
            const Handin& h = handins_.at(ids[k]);
            t.ids.push_back(h.id);
            shard.push_back({{"id", h.id}, {"path", fs::absolute(h.path).string()}, {"problem", h.problem}});
        }
        sub.tasks.push_back(t);
        shards.push_back(shard);
    }
    return sub;
}

void SlurmBatch::write_plan(int number, const json& shards) {
    std::string policy_toml = files_.dir() + "/policy.toml";
    write_file_atomically(policy_toml, policy_to_toml(b_.grade.policy, "The policy this batch grades with: " +
                                                                           b_.grade.policy.source + "."));
    json plan = {{"settings", plan_settings(b_, policy_toml)}, {"shards", shards}};
    write_file_atomically(files_.plan(number), plan.dump(2) + "\n");
}

void SlurmBatch::write_script(int number) {
    // The task runs the grader that submitted it, from the shared filesystem.
    std::string self = fs::read_symlink("/proc/self/exe").string();
    std::string script = fmt::format(
        "#!/bin/sh\n"
        "# perflab grader, submission {}: each array task grades one shard of the batch\n"
        "# on its own node (DIR and the grader must be on a filesystem the nodes share).\n"
        "exec {} slurm-task --batch {} --submission {} --task \"$SLURM_ARRAY_TASK_ID\"\n",
        number, shell_quote(self), shell_quote(out_), number);
    write_file_atomically(files_.script(number), script);
    fs::permissions(files_.script(number), fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

std::vector<std::string> SlurmBatch::sbatch_argv(int number, std::size_t tasks) const {
    std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=perflab-grade",
                                  fmt::format("--array=0-{}{}", tasks - 1,
                                              s_.array_limit ? fmt::format("%{}", s_.array_limit) : ""),
                                  "--output=" + files_.logs_dir() + "/%A_%a.out",
                                  fmt::format("--time={}", time_minutes()),
                                  // Our retries are counted and bounded; Slurm's own requeue would hide them.
                                  "--no-requeue"};
    if (!s_.partition.empty()) argv.push_back("--partition=" + s_.partition);
    // Two hand-ins timed on one machine spoil each other's timings.
    if (s_.exclusive_node) argv.push_back("--exclusive");
    else argv.push_back(fmt::format("--cpus-per-task={}", s_.cpus_per_task));
    argv.insert(argv.end(), s_.sbatch_args.begin(), s_.sbatch_args.end());
    argv.push_back(files_.script(number));
    return argv;
}

bool SlurmBatch::submit(const std::vector<std::string>& ids) {
    if (ids.empty()) return true;
    const bool accepted_before = !state_.submissions.empty();
    int number = state_.next_submission++;
    json shards = json::array();
    Submission sub = shard(number, ids, shards);
    // sbatch refuses an array longer than the cluster allows with a bare "Invalid
    // job array specification": name the limit and the option that fits under it.
    if (std::size_t most = max_array_size(); most && sub.tasks.size() > most)
        throw std::runtime_error(fmt::format("{} hand-ins make {} array tasks, more than this cluster's MaxArraySize of {} "
                                             "(`scontrol show config`): use --shard-size {} or more",
                                             ids.size(), sub.tasks.size(), most, (ids.size() + most - 1) / most));
    write_plan(number, shards);
    write_script(number);
    Finished f = run_tool(sbatch_argv(number, sub.tasks.size()));
    if (!f.exited_ok() && accepted_before) {
        tell_once(fmt::format("sbatch failed resubmitting hand-ins ({}); trying again while Slurm recovers "
                              "(every record so far is kept: Ctrl-C and the same command later resumes)",
                              first_line(f.output)));
        return false;
    }
    if (!f.exited_ok())
        throw std::runtime_error(fmt::format("sbatch refused the batch ({}): check --partition and --sbatch-args, "
                                             "and that `sinfo` works on this host",
                                             first_line(f.output)));
    std::optional<std::string> job = parse_sbatch_job(f.output);
    if (!job)
        throw std::runtime_error(fmt::format("sbatch answered '{}' instead of a job id: check the Slurm version",
                                             first_line(f.output)));
    sub.job = *job;
    SlurmSubmission saved{number, sub.job, {}};
    for (const auto& t : sub.tasks) saved.tasks.push_back(t.ids);
    state_.submissions.push_back(saved);
    save_state();
    run_->progress->note(fmt::format("submitted {} as Slurm job array {} ({})", counted(ids.size(), "hand-in"), sub.job,
                                     counted(sub.tasks.size(), "task")));
    active_.push_back(sub);
    return true;
}

void SlurmBatch::cancel(const std::string& job) { run_tool({"scancel", job}); }

std::optional<TaskEnd> SlurmBatch::task_end(const std::string& job, int task, std::map<std::string, JobEnds>& cache) {
    if (!cache.count(job)) {
        // sacct is Slurm's record of finished jobs, when the cluster keeps an
        // accounting database; without one it has no data, and scontrol still
        // knows a finished job for MinJobAge seconds (300 by default).
        std::map<int, TaskEnd> ends;
        Finished f = run_tool({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode,NodeList"});
        if (f.exited_ok()) ends = parse_sacct(f.output, job);
        Finished c = run_tool({"scontrol", "-o", "show", "job", job});
        known_arrays_.erase(job);
        if (c.exited_ok()) {
            for (auto& [t, e] : parse_scontrol_jobs(c.output)) {
                // scontrol has the Reason that sacct lacks; sacct wins on the state.
                if (ends.count(t)) ends[t].reason = e.reason;
                else ends[t] = e;
            }
            // A pending task that scancel removed leaves no record of its own in
            // slurmctld: it just drops out of the array's pending set. A task the
            // array still knows but that is in neither set never ran.
            if (!c.output.empty()) known_arrays_.insert(job);
        } else if (ends.empty() && !forgotten_job(c.output)) {
            // The controller did not answer: the task's end is not known yet, and
            // guessing it would spend one of the hand-in's retries.
            tell_once(fmt::format("scontrol could not say how Slurm job {} ended ({}); asking again", job,
                                  first_line(c.output)));
            cache[job] = std::nullopt;
            return std::nullopt;
        }
        cache[job] = ends;
    }
    if (!cache[job]) return std::nullopt;
    auto it = cache[job]->find(task);
    if (it != cache[job]->end()) return it->second;
    if (known_arrays_.count(job))
        return TaskEnd{"CANCELLED", "", "", "",
                       "scontrol: the array no longer lists the task as pending and has no record of it running, which "
                       "is what scancel of a pending task leaves"};
    return TaskEnd{"UNKNOWN", "", "", "",
                   "neither sacct (no accounting data) nor scontrol (the job is older than MinJobAge) knows it"};
}

void SlurmBatch::failed(const Submission& sub, const Task& t, const TaskEnd& end) {
    std::string log = fmt::format("{}/{}_{}.out", files_.logs_dir(), sub.job, t.index);
    std::string last = last_line_of_file(log);
    for (const auto& id : t.ids) {
        if (run_->store.has(id)) continue;
        failed_ids_.insert(id);
        int attempts = ++state_.attempts[id];
        std::string what = fmt::format(
            "the Slurm task {}_{} grading it ended {}{}{}{} (from {})", sub.job, t.index, end.state,
            end.reason.empty() || end.reason == "None" ? "" : " (" + end.reason + ")",
            end.exit_code.empty() ? "" : ", exit code " + end.exit_code, end.node.empty() ? "" : " on " + end.node,
            end.source);
        if (attempts <= s_.retries) {
            run_->progress->note(fmt::format("{}: {}; resubmitting (attempt {} of {})", id, what, attempts + 1, s_.retries + 1));
            retry_.push_back(id);
            continue;
        }
        Record r;
        r.id = id;
        r.status = Status::internal_error;
        r.node = end.node;
        r.reason = fmt::format("{}, {}: not the hand-in's fault; see {}{} (run the same command again once fixed)", what,
                               counted(attempts, "time"), log, last.empty() ? "" : " ('" + last + "')");
        std::string feedback = fmt::format("perflab grader: {}\nstatus: {}\nreason: {}\n", id, status_id(r.status), r.reason);
        run_->commit({r, feedback, std::nullopt});
    }
    save_state();
}

bool SlurmBatch::poll(std::size_t& running, std::size_t& pending) {
    // squeue first, records second: a task that left the queue has written
    // every record it will ever write, so what is missing afterwards is lost.
    Finished q = run_tool({"squeue", "-h", "-r", "-u", std::to_string(getuid()), "-o", "%F|%K|%T|%N|%r"});
    merge_records();
    if (!q.exited_ok()) {
        tell_once(fmt::format("squeue failed ({}); trying again at each poll", first_line(q.output)));
        return false;
    }
    std::map<std::pair<std::string, int>, LiveTask> live;
    for (const auto& t : parse_squeue(q.output)) live[{t.job, t.task}] = t;
    std::map<std::string, JobEnds> cache;
    std::map<std::string, std::size_t> held;  // tasks Slurm keeps pending, by its reason
    running = pending = 0;
    for (auto& sub : active_) {
        for (auto& t : sub.tasks) {
            if (t.handled) continue;
            std::size_t missing = std::count_if(t.ids.begin(), t.ids.end(), [&](const auto& id) { return !run_->store.has(id); });
            if (missing == 0) {
                t.handled = true;
                continue;
            }
            auto it = live.find({sub.job, t.index});
            if (it != live.end()) {
                (it->second.state == "PENDING" ? pending : running) += missing;
                if (it->second.state == "PENDING") ++held[it->second.reason];
                continue;
            }
            std::optional<TaskEnd> end = task_end(sub.job, t.index, cache);
            if (!end) continue;
            failed(sub, t, *end);
            t.handled = true;
        }
    }
    // Waiting for a turn is Slurm's business; any other reason (a drained node, a
    // partition down, an account limit) keeps the batch waiting until someone acts.
    static const std::set<std::string> turn = {"None", "Priority", "Resources", "JobArrayTaskLimit"};
    for (const auto& [reason, tasks] : held)
        if (!turn.count(reason))
            tell_once(fmt::format("Slurm keeps {} of this batch pending: {}; the batch waits until Slurm can "
                                  "start them (see `sinfo -R`), or stop it with Ctrl-C and fix the cause",
                                  counted(tasks, "task"), reason),
                      "pending: " + reason);
    std::erase_if(active_, [](const Submission& s) {
        return std::all_of(s.tasks.begin(), s.tasks.end(), [](const Task& t) { return t.handled; });
    });
    return true;
}

void SlurmBatch::write_batch_json() {
    std::vector<NodeBaseline> baselines;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(files_.baselines_dir(), ec)) {
        // A task writes its summary as NAME.json.tmp.PID and renames it: a listing can
        // hold the temporary name, gone by the time it is read.
        if (e.path().extension() != ".json") continue;
        const std::optional<std::string> text = read_file(e.path().string());
        if (!text) continue;
        json j = json::parse(*text, nullptr, false);
        if (j.is_discarded()) continue;
        NodeBaseline nb{j.value("node", ""), j.value("file", ""), j.value("task", ""), j.value("measured_on", ""), {}, {}};
        for (auto& [dim, cpe] : j["rotate_cpe"].items()) nb.rotate[std::stoi(dim)] = cpe.get<double>();
        for (auto& [dim, cpe] : j["smooth_cpe"].items()) nb.smooth[std::stoi(dim)] = cpe.get<double>();
        baselines.push_back(nb);
    }
    std::sort(baselines.begin(), baselines.end(), [](const auto& a, const auto& b) { return a.task < b.task; });
    json report = compare_baselines(baselines);
    report["host"] = host_name();
    report["scheduler"] = "slurm";
    report["policy"] = b_.grade.policy.source;
    if (b_.fixed_baseline) report["fixed_baseline"] = fs::absolute(*b_.fixed_baseline).string();
    json jobs = json::array();
    for (const auto& s : state_.submissions) jobs.push_back(s.job);
    report["slurm_jobs"] = jobs;
    // Hand-ins timed on an outlier node: candidates for a regrade elsewhere.
    std::set<std::string> outliers = report["outlier_nodes"].get<std::set<std::string>>();
    json suspect = json::array();
    for (const auto& r : run_->store.records())
        if (outliers.count(r.node)) suspect.push_back(r.id);
    report["graded_on_outlier_nodes"] = suspect;
    // Records arrive after their task's baseline, jobs with a resubmission: the
    // report follows every change, and is written only then.
    if (report == batch_report_) return;
    batch_report_ = report;
    grader::write_batch_json(out_, report, run_->plan.state);
}

void SlurmBatch::recover(BatchRun& run) {
    run_ = &run;
    files_.create();
    for (const auto& h : run.handins) handins_[h.id] = h;
    state_ = read_slurm_state(files_.state());

    // Jobs a killed grader left behind that Slurm still runs or queues.
    Finished q = run_tool({"squeue", "-h", "-r", "-u", std::to_string(getuid()), "-o", "%F|%K|%T|%N|%r"});
    if (!q.exited_ok())
        throw std::runtime_error(fmt::format("squeue failed ({}): check that this host reaches the Slurm controller "
                                             "(`scontrol ping`)",
                                             first_line(q.output)));
    for (const auto& t : parse_squeue(q.output)) live_jobs_.insert(t.job);

    // Records the tasks wrote after the last merge (the grader was killed) are the
    // earlier run's grading: committed before planning, so that a hand-in replaced
    // since its task graded it counts as changed, and other settings are refused.
    merge_records();
}

void SlurmBatch::before_start(BatchRun& run) {
    if (b_.force && !run.plan.resumed_force) {
        // Old tasks would write records of the old grading after the new one.
        for (const auto& s : state_.submissions)
            if (live_jobs_.count(s.job)) cancel(s.job);
        live_jobs_.clear();
        // The old run's records and baseline summaries describe the old grading.
        fs::remove_all(files_.records_dir());
        fs::remove_all(files_.baselines_dir());
        files_.create();
        state_.submissions.clear();
        state_.attempts.clear();
    }
    // A hand-in regraded (an internal-error, a changed file) gets its retries anew.
    for (const auto& h : run.plan.todo) state_.attempts.erase(h.id);
    save_state();
}

void SlurmBatch::grade(BatchRun& run) {
    const std::set<std::string>& todo = run.todo;
    // Adopt the live jobs: their hand-ins are being graded already.
    std::set<std::string> covered;
    for (const auto& s : state_.submissions) {
        if (!live_jobs_.count(s.job)) continue;
        Submission sub{s.number, s.job, {}};
        for (const auto& ids : s.tasks) {
            Task t{int(sub.tasks.size()), ids};
            for (const auto& id : t.ids) covered.insert(id);
            sub.tasks.push_back(t);
        }
        run.progress->note(fmt::format("Slurm job array {} from an earlier run is still queued or running: waiting for it", s.job));
        active_.push_back(sub);
    }
    std::vector<std::string> fresh;
    for (const auto& id : todo)
        if (!covered.count(id)) fresh.push_back(id);
    if (!submit(fresh)) retry_ = fresh;

    for (;;) {
        std::size_t running = 0, pending = 0;
        bool ok = poll(running, pending);
        if (!retry_.empty()) {
            std::vector<std::string> again;
            again.swap(retry_);
            if (!submit(again)) retry_ = again;
        }
        write_batch_json();
        std::size_t left = std::count_if(todo.begin(), todo.end(), [&](const auto& id) { return !run.store.has(id); });
        std::size_t failing = std::count_if(failed_ids_.begin(), failed_ids_.end(), [&](const auto& id) { return !run.store.has(id); });
        if (ok) run.progress->queue(running, left - std::min(left, running), failing);
        if (active_.empty() && left == 0) break;
        if (active_.empty() && retry_.empty() && ok) {
            // Nothing queued, yet hand-ins lack records: they were in no task
            // (cannot happen) - submit them rather than wait for ever.
            std::vector<std::string> rest;
            for (const auto& id : todo)
                if (!run.store.has(id)) rest.push_back(id);
            submit(rest);
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(s_.poll_seconds));
    }
}

}  // namespace

int run_slurm_batch(const BatchSettings& batch, const SlurmSettings& slurm) {
    require_slurm_tools();
    SlurmBatch backend(batch, slurm);
    return run_batch_with(batch, backend);
}

}  // namespace perflab::grader
