#include "results_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "common/read_file.hpp"

namespace perflab::grader {

ResultsStore::ResultsStore(std::string path) : path_(std::move(path)) {
    const auto read = read_file(path_);
    if (!read) return;
    const std::string& text = *read;
    std::size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (complete < text.size()) std::filesystem::resize_file(path_, complete);
    std::istringstream lines(text.substr(0, complete));
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.empty()) continue;
        auto j = nlohmann::json::parse(line, nullptr, false);
        try {
            if (j.is_discarded()) throw std::runtime_error("not JSON");
            Record r = record_from_json(j);
            by_id_[r.id] = r;
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("{}:{}: not a grader record ({}): move the file away to start over",
                                                 path_, number, e.what()));
        }
    }
}

std::vector<Record> ResultsStore::records() const {
    std::vector<Record> out;
    for (const auto& [id, r] : by_id_) out.push_back(r);
    return out;
}

void ResultsStore::append(const Record& r) {
    std::string line = to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    int fd = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot open '{}' ({}): check the output directory", path_, std::strerror(errno)));
    ssize_t n = write(fd, line.data(), line.size());
    int err = errno;
    bool synced = fsync(fd) == 0;
    close(fd);
    if (n != ssize_t(line.size()) || !synced)
        throw std::runtime_error(fmt::format("cannot append to '{}' ({}): check the disk has space", path_,
                                             n < 0 ? std::strerror(err) : "short write"));
    by_id_[r.id] = r;
}

void ResultsStore::forget(const std::set<std::string>& ids) {
    std::string text;
    bool changed = false;
    for (const auto& [id, r] : by_id_) {
        if (ids.count(id)) {
            changed = true;
            continue;
        }
        text += to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    if (!changed) return;
    write_file_atomically(path_, text);
    std::erase_if(by_id_, [&](const auto& entry) { return ids.count(entry.first) > 0; });
}

}  // namespace perflab::grader
