// results.jsonl: the batch's durable memory. Each record is one write() of a
// whole line with O_APPEND and an fsync, so a grader killed at any instant leaves
// at most one torn last line, which loading drops; resuming then keeps or
// regrades each record (batch_resume.hpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "record.hpp"

namespace perflab::grader {

class ResultsStore {
public:
    // Loads `path` (missing is empty) and cuts off a torn last line, so the next
    // append starts on a line of its own. Throws std::runtime_error naming the
    // file and line when a complete line is not a record.
    explicit ResultsStore(std::string path);

    bool has(const std::string& id) const { return by_id_.count(id) > 0; }
    // The latest record of `id`, or null.
    const Record* find(const std::string& id) const {
        auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : &it->second;
    }
    // Records in ID order, the latest for each ID.
    std::vector<Record> records() const;

    void append(const Record& r);
    // Drops the records of `ids` (for --force) by rewriting the file atomically.
    void forget(const std::set<std::string>& ids);

private:
    std::string path_;
    std::map<std::string, Record> by_id_;
};

}  // namespace perflab::grader
