#include "slurm_answers.hpp"

#include <algorithm>
#include <sstream>

namespace perflab::grader {

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

std::optional<std::string> parse_sbatch_job(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    std::string job = line.substr(0, line.find(';'));
    if (!all_digits(job)) return std::nullopt;
    return job;
}

}  // namespace perflab::grader
