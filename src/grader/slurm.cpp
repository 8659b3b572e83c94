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
#include <sstream>
#include <thread>

#include "common/atomic_file.hpp"
#include "common/counted.hpp"
#include "common/scratch_dir.hpp"
#include "batch_lock.hpp"
#include "batch_resume.hpp"
#include "calibration.hpp"
#include "gradebook.hpp"
#include "progress.hpp"
#include "results_store.hpp"
#include "settings_check.hpp"
#include "common/statistics.hpp"
#include "common/subprocess.hpp"
#include "common/toml_file.hpp"

namespace perflab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

void SlurmFiles::create() const {
    for (const auto& d : {records_dir(), baselines_dir(), logs_dir(), dir() + "/plans", out_ + "/baselines"})
        fs::create_directories(d);
}

// ---------------------------------------------------------------------------
// Options from the policy TOML

SlurmFileOptions read_slurm_options(const std::string& policy_file) {
    SlurmFileOptions o;
    toml::table root = parse_toml(read_text_file(policy_file, "policy"), policy_file);
    const toml::table* t = root["slurm"].as_table();
    if (!t) return o;
    auto bad = [&](const char* key, const char* type) {
        return std::runtime_error(fmt::format("{}: [slurm] {} must be {}", policy_file, key, type));
    };
    for (const auto& [key, node] : *t) {
        std::string k(key.str());
        if (k == "enabled") {
            if (!node.is_boolean()) throw bad("enabled", "true or false");
            o.enabled = *node.value<bool>();
        } else if (k == "partition") {
            if (!node.is_string()) throw bad("partition", "a string");
            o.partition = *node.value<std::string>();
        } else if (k == "exclusive") {
            auto v = node.value<std::string>();
            if (!v || (*v != "node" && *v != "cores")) throw bad("exclusive", "\"node\" or \"cores\"");
            o.exclusive = *v;
        } else if (k == "array_limit" || k == "shard_size" || k == "cpus_per_task" || k == "retries" ||
                   k == "time_minutes") {
            auto v = node.value<int64_t>();
            if (!v || *v < 0 || (*v == 0 && k != "array_limit" && k != "retries" && k != "time_minutes"))
                throw bad(k.c_str(), "a positive integer");
            if (k == "array_limit") o.array_limit = std::size_t(*v);
            if (k == "shard_size") o.shard_size = std::size_t(*v);
            if (k == "cpus_per_task") o.cpus_per_task = int(*v);
            if (k == "retries") o.retries = int(*v);
            if (k == "time_minutes") o.time_minutes = int(*v);
        } else if (k == "sbatch_args") {
            const toml::array* a = node.as_array();
            if (!a) throw bad("sbatch_args", "an array of strings");
            std::vector<std::string> args;
            for (const auto& e : *a) {
                if (!e.is_string()) throw bad("sbatch_args", "an array of strings");
                args.push_back(*e.value<std::string>());
            }
            o.sbatch_args = args;
        } else {
            throw std::runtime_error(fmt::format("{}: unknown key [slurm] {}: the keys are enabled, partition, array_limit, "
                                                 "shard_size, exclusive, cpus_per_task, retries, time_minutes, sbatch_args",
                                                 policy_file, k));
        }
    }
    return o;
}

void require_slurm_tools() {
    for (const char* tool : {"sbatch", "squeue", "scontrol", "scancel"}) {
        if (!find_executable(tool))
            throw std::runtime_error(fmt::format("--slurm needs Slurm's {} on PATH: install slurm-client (apt-get install "
                                                 "slurm-client) on this host, or grade here without --slurm",
                                                 tool));
    }
}

// ---------------------------------------------------------------------------
// Reading Slurm's answers

namespace {

std::string field(const std::string& line, const std::string& key) {
    // Keys are whole words: "NodeList=" must not match "ReqNodeList=".
    std::size_t at = 0;
    while ((at = line.find(key + "=", at)) != std::string::npos) {
        if (at == 0 || line[at - 1] == ' ') {
            std::size_t start = at + key.size() + 1, end = line.find(' ', start);
            return line.substr(start, end == std::string::npos ? std::string::npos : end - start);
        }
        at += key.size();
    }
    return "";
}

// Also refuses Slurm's NO_VAL (4294967294), which squeue shows for an array's
// pending remainder in some states and which no task index reaches.
bool all_digits(const std::string& s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What scontrol says of a job slurmctld no longer holds (past MinJobAge), as
// opposed to a controller it could not reach.
bool forgotten_job(const std::string& scontrol_output) {
    return scontrol_output.find("Invalid job id specified") != std::string::npos;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) out.push_back(part);
    if (!s.empty() && s.back() == sep) out.push_back("");
    return out;
}

}  // namespace

std::map<int, TaskEnd> parse_scontrol_jobs(const std::string& text) {
    std::map<int, TaskEnd> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::string task = field(line, "ArrayTaskId");
        if (!all_digits(task)) continue;  // the pending remainder of an array: "3-9%1"
        TaskEnd e;
        e.state = field(line, "JobState");
        e.reason = field(line, "Reason");
        e.exit_code = field(line, "ExitCode");
        e.node = field(line, "BatchHost");
        if (e.node.empty() || e.node == "(null)") e.node = field(line, "NodeList");
        if (e.node == "(null)") e.node.clear();
        e.source = "scontrol";
        out[std::stoi(task)] = e;
    }
    return out;
}

std::map<int, TaskEnd> parse_sacct(const std::string& text, const std::string& array_job) {
    std::map<int, TaskEnd> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        auto f = split(line, '|');
        if (f.size() < 4) continue;
        if (f[0].rfind(array_job + "_", 0) != 0) continue;
        std::string task = f[0].substr(array_job.size() + 1);
        if (!all_digits(task)) continue;
        TaskEnd e;
        e.state = f[1].substr(0, f[1].find(' '));  // "CANCELLED by 0"
        e.exit_code = f[2];
        e.node = f[3] == "None assigned" ? "" : f[3];
        e.source = "sacct";
        out[std::stoi(task)] = e;
    }
    return out;
}

std::vector<LiveTask> parse_squeue(const std::string& text) {
    std::vector<LiveTask> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        auto f = split(line, '|');
        if (f.size() < 5 || !all_digits(f[0]) || !all_digits(f[1])) continue;
        out.push_back({f[0], std::stoi(f[1]), f[2], f[3], f[4]});
    }
    return out;
}

// ---------------------------------------------------------------------------
// Baselines across nodes

nlohmann::json compare_baselines(const std::vector<NodeBaseline>& baselines) {
    auto median_by_dim = [&](auto member) {
        std::map<int, std::vector<double>> all;
        for (const auto& b : baselines)
            for (const auto& [dim, cpe] : b.*member) all[dim].push_back(cpe);
        std::map<int, double> med;
        for (auto& [dim, v] : all) med[dim] = median(v);
        return med;
    };
    const auto rotate_median = median_by_dim(&NodeBaseline::rotate);
    const auto smooth_median = median_by_dim(&NodeBaseline::smooth);
    std::vector<double> rot_dev, smo_dev, all_dev;
    for (const auto& b : baselines) {
        rot_dev.push_back(drift_percent(rotate_median, b.rotate));
        smo_dev.push_back(drift_percent(smooth_median, b.smooth));
        all_dev.push_back(rot_dev.back());
        all_dev.push_back(smo_dev.back());
    }
    // A robust scale (median absolute deviation) so one slow node cannot hide
    // itself by widening the threshold; never below 10%, which ordinary noise
    // between identical nodes stays under at the dimensions graded.
    double threshold = 10;
    if (all_dev.size() >= 4) {
        std::vector<double> abs_dev;
        double m = median(all_dev);
        for (double d : all_dev) abs_dev.push_back(std::fabs(d - m));
        threshold = std::max(threshold, 3 * 1.4826 * median(abs_dev));
    }
    json list = json::array();
    std::set<std::string> outlier_nodes;
    auto cpes = [](const std::map<int, double>& by_dim) {
        json o = json::object();
        for (const auto& [dim, cpe] : by_dim) o[std::to_string(dim)] = cpe;
        return o;
    };
    for (std::size_t i = 0; i < baselines.size(); ++i) {
        const auto& b = baselines[i];
        bool outlier = std::fabs(rot_dev[i]) > threshold || std::fabs(smo_dev[i]) > threshold;
        if (outlier) outlier_nodes.insert(b.node);
        list.push_back({{"node", b.node},
                        {"task", b.task},
                        {"file", b.file},
                        {"measured_on", b.measured_on},
                        {"rotate_cpe", cpes(b.rotate)},
                        {"smooth_cpe", cpes(b.smooth)},
                        {"deviation_percent", {{"rotate", rot_dev[i]}, {"smooth", smo_dev[i]}}},
                        {"outlier", outlier}});
    }
    auto spread = [](const std::vector<double>& v) {
        return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
    };
    return {{"baselines", list},
            {"spread_percent", {{"rotate", spread(rot_dev)}, {"smooth", spread(smo_dev)}}},
            {"outlier_threshold_percent", threshold},
            {"outlier_nodes", json(std::vector<std::string>(outlier_nodes.begin(), outlier_nodes.end()))}};
}

// ---------------------------------------------------------------------------
// The submitting side

namespace {

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

std::string read_text_file_or(const std::string& path, const std::string& fallback) {
    return fs::exists(path) ? read_text_file(path, "state") : fallback;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

json settings_json(const GradeSettings& g, const std::string& fixed_baseline, const std::string& policy_toml) {
    return {{"perflab", fs::absolute(g.layout.root).string()},
            {"trials", g.trials},
            {"max_trials", g.max_trials},
            {"driver_args", g.driver_args},
            {"wall_seconds", g.sandbox.wall_seconds},
            {"cpu_seconds", g.sandbox.cpu_seconds},
            {"memory_bytes", g.sandbox.memory_bytes},
            {"processes", g.sandbox.processes},
            {"open_files", g.sandbox.open_files},
            {"file_size_bytes", g.sandbox.file_size_bytes},
            {"compile_seconds", g.build.compile_seconds},
            {"policy", policy_toml},
            {"fixed_baseline", fixed_baseline}};
}

class SlurmBatch {
public:
    SlurmBatch(const BatchSettings& b, const SlurmSettings& s)
        : b_(b), s_(s), out_(fs::absolute(b.out_dir).string()), files_(out_), store_(out_ + "/results.jsonl") {}

    int run();

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
    ResultsStore store_;
    std::map<std::string, Handin> handins_;
    std::set<std::string> todo_;  // hand-ins without a record when this run started
    std::vector<Submission> active_;
    std::vector<std::string> retry_;
    std::set<std::string> failed_ids_;
    std::set<std::string> told_;          // notes the instructor has been given once already
    std::set<std::string> known_arrays_;  // arrays scontrol still had a record of at the last look
    json state_;
    std::unique_ptr<Progress> progress_;
    json batch_report_;  // as last written to batch.json
    ResumePlan plan_;
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

void SlurmBatch::save_state() { write_file_atomically(files_.state(), state_.dump(2) + "\n"); }

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
        if (ours && !store_.has(g.record.id)) {
            commit_graded(out_, store_, g, b_.grade.policy);
            if (todo_.count(g.record.id)) progress_->done(g.record.id, summary(g.record));
        }
        fs::remove(e.path(), ec);
    }
}

void SlurmBatch::tell_once(const std::string& note, const std::string& key) {
    if (told_.insert(key.empty() ? note : key).second) progress_->note(note);
}

// Returns false when sbatch refused a job it has accepted before with the same
// settings: the controller is down or busy, which waiting mends; the caller
// tries again at its next poll.
bool SlurmBatch::submit(const std::vector<std::string>& ids) {
    if (ids.empty()) return true;
    const bool accepted_before = !state_["submissions"].empty();
    int number = state_["next_submission"].get<int>();
    state_["next_submission"] = number + 1;
    Submission sub{number, "", {}};
    json shards = json::array();
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
    // sbatch refuses an array longer than the cluster allows with a bare "Invalid
    // job array specification": name the limit and the option that fits under it.
    if (std::size_t most = max_array_size(); most && sub.tasks.size() > most)
        throw std::runtime_error(fmt::format("{} hand-ins make {} array tasks, more than this cluster's MaxArraySize of {} "
                                             "(`scontrol show config`): use --shard-size {} or more",
                                             ids.size(), sub.tasks.size(), most, (ids.size() + most - 1) / most));
    std::string policy_toml = files_.dir() + "/policy.toml";
    write_file_atomically(policy_toml, policy_to_toml(b_.grade.policy, "The policy this batch grades with: " +
                                                                           b_.grade.policy.source + "."));
    json plan = {{"settings", settings_json(b_.grade, b_.fixed_baseline ? fs::absolute(*b_.fixed_baseline).string() : "",
                                            policy_toml)},
                 {"shards", shards}};
    write_file_atomically(files_.plan(number), plan.dump(2) + "\n");

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

    std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=perflab-grade",
                                  fmt::format("--array=0-{}{}", sub.tasks.size() - 1,
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
    Finished f = run_tool(argv);
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
    sub.job = first_line(f.output).substr(0, first_line(f.output).find(';'));
    if (!all_digits(sub.job))
        throw std::runtime_error(fmt::format("sbatch answered '{}' instead of a job id: check the Slurm version", sub.job));
    json tasks = json::array();
    for (const auto& t : sub.tasks) tasks.push_back(t.ids);
    state_["submissions"].push_back({{"number", number}, {"job", sub.job}, {"tasks", tasks}});
    save_state();
    progress_->note(fmt::format("submitted {} as Slurm job array {} ({})", counted(ids.size(), "hand-in"), sub.job,
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
        if (store_.has(id)) continue;
        failed_ids_.insert(id);
        int attempts = state_["attempts"].value(id, 0) + 1;
        state_["attempts"][id] = attempts;
        std::string what = fmt::format(
            "the Slurm task {}_{} grading it ended {}{}{}{} (from {})", sub.job, t.index, end.state,
            end.reason.empty() || end.reason == "None" ? "" : " (" + end.reason + ")",
            end.exit_code.empty() ? "" : ", exit code " + end.exit_code, end.node.empty() ? "" : " on " + end.node,
            end.source);
        if (attempts <= s_.retries) {
            progress_->note(fmt::format("{}: {}; resubmitting (attempt {} of {})", id, what, attempts + 1, s_.retries + 1));
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
        commit_graded(out_, store_, {r, feedback, std::nullopt}, b_.grade.policy);
        if (todo_.count(id)) progress_->done(id, summary(r));
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
            std::size_t missing = std::count_if(t.ids.begin(), t.ids.end(), [&](const auto& id) { return !store_.has(id); });
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
        json j = json::parse(read_text_file(e.path().string(), "baseline summary"), nullptr, false);
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
    for (const auto& s : state_["submissions"]) jobs.push_back(s["job"]);
    report["slurm_jobs"] = jobs;
    // Hand-ins timed on an outlier node: candidates for a regrade elsewhere.
    std::set<std::string> outliers = report["outlier_nodes"].get<std::set<std::string>>();
    json suspect = json::array();
    for (const auto& r : store_.records())
        if (outliers.count(r.node)) suspect.push_back(r.id);
    report["graded_on_outlier_nodes"] = suspect;
    // Records arrive after their task's baseline, jobs with a resubmission: the
    // report follows every change, and is written only then.
    if (report == batch_report_) return;
    batch_report_ = report;
    grader::write_batch_json(out_, report, plan_.state);
}

int SlurmBatch::run() {
    const std::vector<Handin> found = discover_handins(b_.handins_dir, out_);
    const BatchLock lock(out_);
    fs::create_directories(out_ + "/feedback");
    files_.create();
    for (const auto& h : found) handins_[h.id] = h;

    state_ = json::parse(read_text_file_or(files_.state(), "{}"), nullptr, false);
    if (!state_.is_object()) state_ = json::object();
    if (!state_.contains("next_submission")) state_["next_submission"] = 1;
    if (!state_.contains("submissions")) state_["submissions"] = json::array();
    if (!state_.contains("attempts")) state_["attempts"] = json::object();

    // Jobs a killed grader left behind that Slurm still runs or queues.
    std::set<std::string> live_jobs;
    Finished q = run_tool({"squeue", "-h", "-r", "-u", std::to_string(getuid()), "-o", "%F|%K|%T|%N|%r"});
    if (!q.exited_ok())
        throw std::runtime_error(fmt::format("squeue failed ({}): check that this host reaches the Slurm controller "
                                             "(`scontrol ping`)",
                                             first_line(q.output)));
    for (const auto& t : parse_squeue(q.output)) live_jobs.insert(t.job);

    // Records the tasks wrote after the last merge (the grader was killed) are the
    // earlier run's grading: committed before planning, so that a hand-in replaced
    // since its task graded it counts as changed, and other settings are refused.
    progress_ = std::make_unique<Progress>(stderr, 0);
    merge_records();
    plan_ = plan_resume(out_, found, store_, b_);
    const ResumePlan& plan = plan_;
    if (!plan.todo.empty()) {
        const ScratchDir work("perflab-grader");
        check_settings(b_.grade, b_.fixed_baseline, work.path() + "/settings-check");
    }
    if (b_.force && !plan.resumed_force) {
        // Old tasks would write records of the old grading after the new one.
        for (const auto& s : state_["submissions"])
            if (live_jobs.count(s["job"].get<std::string>())) cancel(s["job"].get<std::string>());
        live_jobs.clear();
        // The old run's records and baseline summaries describe the old grading.
        fs::remove_all(files_.records_dir());
        fs::remove_all(files_.baselines_dir());
        files_.create();
        state_["submissions"] = json::array();
        state_["attempts"] = json::object();
    }
    start_resumed(out_, store_, plan);
    // A hand-in regraded (an internal-error, a changed file) gets its retries anew.
    for (const auto& h : plan.todo) state_["attempts"].erase(h.id);
    save_state();

    for (const auto& h : plan.todo) todo_.insert(h.id);
    progress_ = std::make_unique<Progress>(stderr, todo_.size());
    for (const auto& note : plan.notes) progress_->note(note);
    if (todo_.empty()) {
        write_file_atomically(out_ + "/gradebook.csv", gradebook_csv(store_.records()));
        return finish_batch(out_, store_, plan_);
    }

    // Adopt the live jobs: their hand-ins are being graded already.
    std::set<std::string> covered;
    for (const auto& s : state_["submissions"]) {
        std::string job = s["job"].get<std::string>();
        if (!live_jobs.count(job)) continue;
        Submission sub{s["number"].get<int>(), job, {}};
        for (const auto& ids : s["tasks"]) {
            Task t{int(sub.tasks.size()), ids.get<std::vector<std::string>>()};
            for (const auto& id : t.ids) covered.insert(id);
            sub.tasks.push_back(t);
        }
        progress_->note(fmt::format("Slurm job array {} from an earlier run is still queued or running: waiting for it", job));
        active_.push_back(sub);
    }
    std::vector<std::string> fresh;
    for (const auto& id : todo_)
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
        std::size_t left = std::count_if(todo_.begin(), todo_.end(), [&](const auto& id) { return !store_.has(id); });
        std::size_t failing = std::count_if(failed_ids_.begin(), failed_ids_.end(), [&](const auto& id) { return !store_.has(id); });
        if (ok) progress_->queue(running, left - std::min(left, running), failing);
        if (active_.empty() && left == 0) break;
        if (active_.empty() && retry_.empty() && ok) {
            // Nothing queued, yet hand-ins lack records: they were in no task
            // (cannot happen) - submit them rather than wait for ever.
            std::vector<std::string> rest;
            for (const auto& id : todo_)
                if (!store_.has(id)) rest.push_back(id);
            submit(rest);
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(s_.poll_seconds));
    }
    write_file_atomically(out_ + "/gradebook.csv", gradebook_csv(store_.records()));
    progress_->finish();
    return finish_batch(out_, store_, plan_);
}

}  // namespace

int run_slurm_batch(const BatchSettings& batch, const SlurmSettings& slurm) {
    require_slurm_tools();
    return SlurmBatch(batch, slurm).run();
}

}  // namespace perflab::grader
