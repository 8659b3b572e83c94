// A batch's output directory stays one grading: settings that would fail every
// hand-in stop the batch before it starts, a resume under other settings is
// refused, changed and vanished hand-ins are noticed, two graders never share a
// DIR, a killed --force regrade resumes, and batch.json lists every baseline.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "grader/batch_resume.hpp"
#include "grader/batch_state.hpp"
#include "grader/grade.hpp"
#include "grader/results_store.hpp"
#include "grader_outputs.hpp"
#include "harness.hpp"

namespace fs = std::filesystem;
using namespace perflab;
using namespace perflab::grader;
using nlohmann::json;
using perflab::test::kQuickDriver;
using perflab::test::records_by_id;
using test::repo;

namespace {

std::vector<std::string> grade(const std::string& dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{repo("grader"), "grade",   dir + "/handins", "--out",        dir + "/out",
                                  "--trials",     "1",       "--driver-args",  kQuickDriver,   "--wall-timeout",
                                  "30"};  // as test_grader.cpp's grade_argv, for the same reason
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

// DIR/handins with the fixture hand-ins named, as ID.c.
std::string class_of(const std::string& name, const std::map<std::string, std::string>& ids) {
    const std::string dir = test::scratch_dir(name);
    fs::create_directories(dir + "/handins");
    for (const auto& [id, fixture] : ids) fs::copy_file(test::fixture_handin(fixture), dir + "/handins/" + id + ".c");
    return dir;
}

int lines_of(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

std::string calibrated_baseline(const std::string& dims) {
    auto r = test::run({repo("driver"), "--calibrate", "--dims", dims, "--max-samples", "5"});
    REQUIRE(r.status == 0);
    return r.out;
}

json batch_json(const std::string& dir) { return json::parse(test::read_file(dir + "/out/batch.json")); }

void rewrite_records(const std::string& results, const std::function<void(json&)>& change) {
    std::istringstream in(test::read_file(results));
    std::string text;
    for (std::string line; std::getline(in, line);) {
        json j = json::parse(line);
        change(j);
        text += j.dump() + "\n";
    }
    test::write_file(results, text);
}

}  // namespace

TEST_CASE("settings every hand-in would fail on stop the batch at once with one line", "[batch-integrity]") {
    const std::string dir = class_of("batch-settings", {{"alice", "good"}});
    SECTION("a typo in --driver-args") {
        auto argv = grade(dir);
        argv[argv.size() - 3] = "--dims 64,128 --max-sample 5";
        auto r = test::run(argv);
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(lines_of(r.err) == 1);
        CHECK_THAT(r.err, Catch::Contains("max-sample") && Catch::Contains("--driver-args"));
    }
    SECTION("a baseline that is not there") {
        auto r = test::run(grade(dir, {"--baseline", dir + "/nonexistent.toml"}));
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(lines_of(r.err) == 1);
        CHECK_THAT(r.err, Catch::Contains(dir + "/nonexistent.toml"));
    }
    SECTION("a baseline without a dimension the driver args ask for, named as the instructor's file") {
        test::write_file(dir + "/only64.toml", calibrated_baseline("64"));
        auto r = test::run(grade(dir, {"--baseline", dir + "/only64.toml"}));
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(lines_of(r.err) == 1);
        CHECK_THAT(r.err, Catch::Contains(dir + "/only64.toml") && Catch::Contains("128"));
    }
    // Refused before anything was written: no record, nothing to resume wrongly.
    CHECK_FALSE(fs::exists(dir + "/out/results.jsonl"));
}

TEST_CASE("internal-error records are regraded on resume, and a batch ending with some exits 1", "[batch-integrity]") {
    const std::string dir = class_of("batch-internal-error", {{"alice", "good"}});
    fs::create_directories(dir + "/out");
    // What a grader whose tools failed leaves behind.
    test::write_file(dir + "/out/results.jsonl",
                     R"({"id":"alice","status":"internal-error","reason":"the linker was missing","rotate_speedup":null,)"
                     R"("smooth_speedup":null,"rotate_points":0,"smooth_points":0,"total":0,"trials":0,"baseline":"",)"
                     R"("node":""})"
                     "\n");
    auto r = test::run(grade(dir));
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("regrading 1 hand-in whose record is an internal-error"));
    CHECK(records_by_id(dir + "/out/results.jsonl").at("alice")["status"] == "ok");

    ResultsStore store(dir + "/out/results.jsonl");
    Record failed = store.records().front();
    failed.id = "bob";
    failed.status = Status::internal_error;
    store.append(failed);
    ResumePlan plan;
    plan.state = read_batch_state(dir + "/out");
    CHECK(finish_batch(dir + "/out", store, plan) == 1);
}

TEST_CASE("a resume with other settings is refused; --force regrades under the new ones", "[batch-integrity]") {
    const std::string dir = class_of("batch-settings-change", {{"alice", "good"}});
    REQUIRE(test::run(grade(dir)).status == 0);
    const json first = batch_json(dir);
    CHECK(first["settings_sha256"].get<std::string>().size() == 64);
    CHECK(records_by_id(dir + "/out/results.jsonl").at("alice")["handin_sha256"].get<std::string>().size() == 64);

    fs::copy_file(test::fixture_handin("good"), dir + "/handins/carol.c");
    test::write_file(dir + "/generous.toml", "[rotate]\nmax_points = 100\ncurve = [[0, 100], [2, 100]]\n"
                                             "[smooth]\nmax_points = 100\ncurve = [[0, 100], [2, 100]]\n");
    auto refused = test::run(grade(dir, {"--policy", dir + "/generous.toml"}));
    INFO(refused.err);
    CHECK(refused.status == 1);
    CHECK(lines_of(refused.err) == 1);
    CHECK_THAT(refused.err, Catch::Contains("was graded with other settings (policy)") && Catch::Contains("--force"));
    CHECK(records_by_id(dir + "/out/results.jsonl").count("carol") == 0);

    auto forced = test::run(grade(dir, {"--policy", dir + "/generous.toml", "--force"}));
    INFO(forced.err);
    REQUIRE(forced.status == 0);
    auto records = records_by_id(dir + "/out/results.jsonl");
    CHECK(records.at("alice")["total"] == records.at("carol")["total"]);
    CHECK(batch_json(dir)["settings_sha256"] != first["settings_sha256"]);
    CHECK_FALSE(batch_json(dir).contains("force_started_ns"));  // finished
}

TEST_CASE("a resume names the setting that changed, not one that only followed it", "[batch-integrity]") {
    // --max-trials left at its default follows --trials: "trials" changed, and the
    // name of max_trials (which holds "trials") once hid it.
    CHECK(differing_settings({{"trials", 3}, {"max_trials", 6}}, {{"trials", 5}, {"max_trials", 10}}) == "trials");
    CHECK(differing_settings({{"trials", 3}, {"max_trials", 6}}, {{"trials", 3}, {"max_trials", 9}}) == "max_trials");
    CHECK(differing_settings({{"trials", 3}, {"max_trials", 4}}, {{"trials", 5}, {"max_trials", 10}}) ==
          "max_trials, trials");
}

TEST_CASE("every instructor command refuses what does not exist or does not parse, in one line naming it",
          "[batch-integrity]") {
    const std::string dir = class_of("instructor-edges", {{"bob", "good"}});
    fs::create_directories(dir + "/handins/bob");
    fs::copy_file(test::fixture_handin("good"), dir + "/handins/bob/kernels.c");
    // A typo in the file named: never the neighbour kernels.c graded in its place.
    auto typo = test::run({repo("grader"), "autolab", dir + "/handins/bob/kernel.c", "--trials", "1"});
    INFO(typo.out << typo.err);
    CHECK(typo.status != 0);
    CHECK(lines_of(typo.err) == 1);
    CHECK_THAT(typo.err, Catch::Contains(dir + "/handins/bob/kernel.c"));
    CHECK_THAT(typo.out, !Catch::Contains("status:"));
    // A mistyped command is named, with the one it most likely meant.
    auto misspelt = test::run({repo("grader"), "grdae", dir + "/handins", "--out", dir + "/out"});
    CHECK(misspelt.status != 0);
    CHECK(lines_of(misspelt.err) == 1);
    CHECK_THAT(misspelt.err, Catch::Contains("'grdae'") && Catch::Contains("did you mean grade?"));
    // Run by hand outside Gradescope's container, gradescope writes nowhere unasked.
    if (!fs::exists("/autograder")) {
        auto outside = test::run({repo("grader"), "gradescope"});
        CHECK(outside.status != 0);
        CHECK(lines_of(outside.err) == 1);
        CHECK_THAT(outside.err, Catch::Contains("/autograder/submission") && Catch::Contains("not a Gradescope container"));
        auto by_hand = test::run({repo("grader"), "gradescope", "--submission", dir + "/handins/bob.c", "--trials", "1",
                                  "--driver-args", kQuickDriver});
        INFO(by_hand.err);
        CHECK(by_hand.status == 0);
        CHECK_THAT(by_hand.out, Catch::Contains("status: ok"));
        CHECK_THAT(by_hand.err, Catch::Contains("writing no results.json"));
        CHECK_FALSE(fs::exists("/autograder"));
    }
}

TEST_CASE("a hand-in changed since graded is regraded, one gone keeps its grade and is named, old records are kept",
          "[batch-integrity]") {
    const std::string dir = class_of("batch-changed", {{"alice", "good"}, {"bob", "good"}, {"dave", "wrong"}});
    REQUIRE(test::run(grade(dir)).status == 0);
    // dave's record as a grader before hand-in digests wrote it: kept, not regraded.
    rewrite_records(dir + "/out/results.jsonl", [](json& j) {
        if (j["id"] != "dave") return;
        j.erase("handin_sha256");
        j.erase("graded_at_ns");
    });
    fs::copy_file(test::fixture_handin("wrong"), dir + "/handins/bob.c", fs::copy_options::overwrite_existing);
    fs::remove(dir + "/handins/alice.c");

    auto r = test::run(grade(dir));
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("regrading 1 hand-in changed since graded: bob"));
    CHECK_THAT(r.err, Catch::Contains("keeping 1 record whose hand-in is not in the hand-ins directory: alice"));
    CHECK_THAT(r.err, Catch::Contains("1 of 2 hand-ins already graded"));
    auto records = records_by_id(dir + "/out/results.jsonl");
    CHECK(records.at("bob")["status"] == "wrong-result");
    // Kept as it was: still without a digest or a time (rewritten with them empty).
    CHECK(records.at("dave").value("handin_sha256", "") == "");
    CHECK(records.at("dave").value("graded_at_ns", 0) == 0);
    // A grade already earned is never erased by what HANDINS holds now.
    CHECK(records.at("alice")["status"] == "ok");
    CHECK(test::gradebook_statuses(test::read_file(dir + "/out/gradebook.csv")) ==
          std::map<std::string, std::string>{{"alice", "ok"}, {"bob", "wrong-result"}, {"dave", "wrong-result"}});
}

TEST_CASE("a record's hand-in digest is of the bytes its grading read, taken as it read them", "[batch-integrity]") {
    // What a Slurm task or a local batch grades is named by the digest grade_handin
    // takes, not by one the submitting grader takes when it commits the record later.
    const std::string dir = test::scratch_dir("batch-digest");
    const std::string archive = dir + "/carol.tar";
    test::write_file(dir + "/t/notes.txt", "no kernels file here");
    REQUIRE(test::sh("tar -cf '" + archive + "' -C '" + dir + "/t' notes.txt").status == 0);
    auto sum = test::sh("sha256sum '" + archive + "' | cut -d' ' -f1");
    REQUIRE(sum.status == 0);
    Graded g = grade_handin(Handin{"carol", archive, ""}, GradeSettings{}, "", dir + "/work");
    CHECK(g.record.status == Status::unusable);  // read, found wanting, and still named
    CHECK(g.record.handin_sha256 + "\n" == sum.out);
}

TEST_CASE("a second grader on the same DIR refuses at once, naming the first one's PID", "[batch-integrity]") {
    const std::string dir = class_of("batch-lock", {{"alice", "good"}});
    fs::create_directories(dir + "/out");
    // This test process stands in for a grader in the middle of the batch.
    int fd = open((dir + "/out/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
    const std::string me = std::to_string(getpid()) + "\n";
    REQUIRE(write(fd, me.data(), me.size()) == ssize_t(me.size()));
    auto refused = test::run(grade(dir));
    close(fd);
    INFO(refused.err);
    CHECK(refused.status == 1);
    CHECK(lines_of(refused.err) == 1);
    CHECK_THAT(refused.err, Catch::Contains("PID " + std::to_string(getpid())));
    CHECK_FALSE(fs::exists(dir + "/out/results.jsonl"));
    // The lock goes with its holder.
    CHECK(test::run(grade(dir)).status == 0);
}

TEST_CASE("the same --force command after a kill resumes the forced regrade", "[batch-integrity]") {
    const std::string dir = class_of("batch-force-resume", {{"alice", "good"}, {"bob", "good"}});
    REQUIRE(test::run(grade(dir)).status == 0);
    // A forced run killed after it regraded bob: its start is in batch.json,
    // alice's record predates it and bob's does not.
    json state = batch_json(dir);
    state["force_started_ns"] = 1000;
    test::write_file(dir + "/out/batch.json", state.dump(2));
    rewrite_records(dir + "/out/results.jsonl", [](json& j) {
        if (j["id"] == "alice") j["graded_at_ns"] = 999;
    });
    const json bob_before = records_by_id(dir + "/out/results.jsonl").at("bob");

    auto r = test::run(grade(dir, {"--force"}));
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("resuming the --force regrade"));
    auto records = records_by_id(dir + "/out/results.jsonl");
    CHECK(records.at("bob") == bob_before);
    CHECK(records.at("alice")["graded_at_ns"].get<std::int64_t>() > 1000);
    CHECK_FALSE(batch_json(dir).contains("force_started_ns"));

    // A new --force, once the last one finished, regrades everything again.
    auto again = test::run(grade(dir, {"--force"}));
    REQUIRE(again.status == 0);
    CHECK(records_by_id(dir + "/out/results.jsonl").at("bob") != bob_before);
}

TEST_CASE("after a resume with --recalibrate-every, batch.json lists every record's baseline", "[batch-integrity]") {
    const std::string dir = class_of("batch-baselines", {{"alice", "good"}});
    REQUIRE(test::run(grade(dir, {"--recalibrate-every", "1"})).status == 0);
    fs::copy_file(test::fixture_handin("good"), dir + "/handins/bob.c");
    auto r = test::run(grade(dir, {"--recalibrate-every", "1"}));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json batch = batch_json(dir);
    std::set<std::string> listed;
    for (const auto& b : batch["baselines"]) listed.insert(b["file"].get<std::string>());
    auto records = records_by_id(dir + "/out/results.jsonl");
    CHECK(records.at("alice")["baseline"] != records.at("bob")["baseline"]);
    for (const auto& [id, record] : records) CHECK(listed.count(record["baseline"].get<std::string>()) == 1);
}

TEST_CASE("batch.json words a recalibration interval as English, and a batch fingerprinted in the old words resumes",
          "[batch-integrity]") {
    const std::string dir = class_of("batch-worded", {{"alice", "good"}});
    REQUIRE(test::run(grade(dir, {"--recalibrate-every", "1"})).status == 0);
    json batch = batch_json(dir);
    CHECK(batch["settings"]["baseline"] == "batch, measured every hand-in");
    BatchSettings every3;
    every3.recalibrate_every = 3;
    CHECK(grading_settings(every3).settings["baseline"] == "batch, measured every 3 hand-ins");

    // batch.json as a grader before the wording wrote it: its fingerprint is of the words.
    batch["settings"]["baseline"] = "batch, measured every 1 hand-ins";
    test::write_file(dir + "/old-settings.json", batch["settings"].dump());
    auto sum = test::sh("sha256sum '" + dir + "/old-settings.json' | cut -d' ' -f1");
    REQUIRE(sum.status == 0);
    batch["settings_sha256"] = sum.out.substr(0, 64);
    test::write_file(dir + "/out/batch.json", batch.dump(2));
    const json alice = records_by_id(dir + "/out/results.jsonl").at("alice");

    auto r = test::run(grade(dir, {"--recalibrate-every", "1"}));
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("1 of 1 hand-in already graded"));
    CHECK(records_by_id(dir + "/out/results.jsonl").at("alice") == alice);
    CHECK(batch_json(dir)["settings"]["baseline"] == "batch, measured every hand-in");
    // Still one grading: other settings are refused as before.
    auto refused = test::run(grade(dir, {"--recalibrate-every", "2"}));
    CHECK(refused.status == 1);
    CHECK_THAT(refused.err, Catch::Contains("other settings (baseline)"));
}

TEST_CASE("a fixed --baseline with --recalibrate-every is refused, not one of them ignored", "[batch-integrity]") {
    const std::string dir = class_of("batch-two-baselines", {{"alice", "good"}});
    test::write_file(dir + "/baseline.toml", calibrated_baseline("64,128"));
    auto r = test::run(grade(dir, {"--baseline", dir + "/baseline.toml", "--recalibrate-every", "3"}));
    INFO(r.err);
    CHECK(r.status == 1);
    CHECK(lines_of(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains("--baseline") && Catch::Contains("--recalibrate-every"));
    CHECK_FALSE(fs::exists(dir + "/out"));
}

TEST_CASE("a timed batch spreads each hand-in's trials over the batch, round by round", "[batch-integrity]") {
    const std::string dir = class_of("batch-rounds", {{"a", "good"}, {"b", "good"}, {"c", "wrong"}, {"d", "good"}});
    auto argv = grade(dir, {"--max-trials", "2"});
    argv[6] = "2";  // --trials 2
    auto r = test::run(argv);
    INFO(r.err);
    REQUIRE(r.status == 0);
    // Round 1 timed every hand-in once; none was committed then: c's rotate failed,
    // but its smooth earns from as many trials as the others' kernels, so all four
    // were committed only once round 2 had timed them again.
    const auto round2 = r.err.find("trial round 2: 4 hand-ins still to time");
    REQUIRE(round2 != std::string::npos);
    CHECK(r.err.find("c: wrong-result") > round2);
    for (const char* id : {"a", "b", "d"}) CHECK(r.err.find(std::string("] ") + id + ": ok") > round2);
    auto records = records_by_id(dir + "/out/results.jsonl");
    for (const char* id : {"a", "b", "c", "d"}) CHECK(records[id]["trials"] == 2);
    // Every run's oracle, in the order the trials ran, is watched for a regime change.
    const json oracle = batch_json(dir)["oracle_regimes"];
    CHECK(oracle["rotate"]["trials"] == 6);
    CHECK(oracle["rotate"]["moved"].is_boolean());
}
