// experiment::run_session (session.h): points of a session on several threads, each with its
// own monitors and recorder, give the files of one thread; a point's trace still comes from
// that point; a shard's results.json says about published values what the whole run says; the
// hooks are called one at a time.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "experiment/session.h"
#include "support/paths.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::filesystem::path fresh_dir(const std::string& name) {
    const auto dir = ::ipisim::test::scratch_path(("ipisim_session_test_" + name));
    std::filesystem::remove_all(dir);
    return dir;
}

// ipi_latency on the toy GICv3 machine, 4 points, and a published value for sender 0 only.
std::string toy_file() {
    const auto path = ::ipisim::test::scratch_path("ipisim_session_test.toml");
    std::ofstream(path) << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toy4_arm\"\n"
                           "[kernel]\nversion = \"6.6\"\n[params]\nrounds = 2\nsender = 0\n"
                           "[sweep]\nsender = [0, 1, 2, 3]\n"
                           "[published]\nsource = \"made up for the test\"\n"
                           "[[published.rows]]\nparams = { sender = 0 }\nmetrics = { ipis = 1 }\n";
    return path.string();
}

PreparedExperiment prepare(const std::vector<std::string>& overrides = {}) {
    return prepare_experiment(load_experiment(toy_file(), overrides), kMachines);
}

RunReport run_one(SessionRun run, unsigned jobs, SessionHooks hooks = {}) {
    SessionOptions options;
    options.jobs = jobs;
    options.hooks = std::move(hooks);
    options.plots = false;
    RunReport out;
    run_session({run}, options, [&](size_t, RunReport& r) { out = std::move(r); });
    return out;
}

TEST(Session, points_on_three_threads_give_the_files_and_the_trace_of_one_thread) {
    PreparedExperiment one = prepare();
    PreparedExperiment three = prepare();
    report::TraceOptions trace1;
    report::TraceOptions trace3;
    SessionRun a{&one, fresh_dir("jobs1"), {}, std::nullopt, &trace1, {}};
    SessionRun b{&three, fresh_dir("jobs3"), {}, std::nullopt, &trace3, {}};
    trace1.file = (a.out_dir / "trace.json").string();
    trace3.file = (b.out_dir / "trace.json").string();
    trace1.point = trace3.point = 2;
    const RunReport r1 = run_one(a, 1);
    const RunReport r3 = run_one(b, 3);
    EXPECT_EQ(r3.json, r1.json);
    EXPECT_EQ(r3.text, r1.text);
    for (const char* f : {"results.json", "results.csv", "config.toml"}) {
        EXPECT_EQ(test::read_file(b.out_dir / f), test::read_file(a.out_dir / f)) << f;
    }
    const std::string t3 = test::read_file(trace3.file);
    ASSERT_FALSE(t3.empty());
    EXPECT_EQ(t3, test::read_file(trace1.file));
    EXPECT_EQ(nlohmann::ordered_json::parse(t3)["otherData"]["point"], 2);
    ASSERT_EQ(r3.results.rows.size(), 4U);
    for (size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(r3.results.rows[k].point, k);
        EXPECT_FALSE(r3.results.rows[k].latency.empty()) << k;  // every point has its own recorder
        EXPECT_EQ(r3.results.rows[k].check["violations"], 0) << k;
    }
}

TEST(Session, hooks_are_called_one_at_a_time_for_every_point) {
    PreparedExperiment p = prepare();
    std::atomic<int> inside{0};
    int overlaps = 0;
    size_t started = 0;
    size_t finished = 0;
    size_t scheduled = 0;
    auto enter = [&] {
        if (inside.fetch_add(1) != 0) ++overlaps;
    };
    SessionHooks hooks;
    hooks.scheduled = [&](size_t n) { scheduled = n; };
    hooks.started = [&](size_t, size_t) {
        enter();
        ++started;
        --inside;
    };
    hooks.finished = [&](size_t, size_t, const report::ResultRow&) {
        enter();
        ++finished;
        --inside;
    };
    run_one(SessionRun{&p, fresh_dir("hooks"), {}, std::nullopt, nullptr, {}}, 3, hooks);
    EXPECT_EQ(scheduled, 4U);
    EXPECT_EQ(started, 4U);
    EXPECT_EQ(finished, 4U);
    EXPECT_EQ(overlaps, 0);
}

// The note on published values is about every point of the sweep: here only point 0 has a
// published row, and rounds=3 keeps it from being compared. Shard 1/2 (points 1 and 3) must
// say so too, or its merge would differ from the unsharded run.
TEST(Session, a_shard_says_about_published_values_what_the_whole_run_says) {
    PreparedExperiment whole = prepare({"params.rounds=3"});
    PreparedExperiment shard = prepare({"params.rounds=3"});
    const RunReport w = run_one(SessionRun{&whole, fresh_dir("note_whole"), {}, std::nullopt, nullptr, {}}, 1);
    const RunReport s = run_one(SessionRun{&shard, fresh_dir("note_shard"), {}, Shard{1, 2}, nullptr, {}}, 1);
    EXPECT_NE(w.results.published_note.find("rounds=3 (published: 2)"), std::string::npos) << w.results.published_note;
    EXPECT_EQ(s.results.published_note, w.results.published_note);
    EXPECT_EQ(s.results.published_source, "made up for the test");
    ASSERT_EQ(s.results.rows.size(), 2U);
    EXPECT_EQ(s.results.rows[0].point, 1U);
}

TEST(Session, a_resumed_run_runs_its_traced_point_again_so_the_trace_is_written) {
    const auto dir = fresh_dir("resume_trace");
    {
        PreparedExperiment p = prepare();
        run_one(SessionRun{&p, dir, {}, std::nullopt, nullptr, {}}, 2);
    }
    PreparedExperiment p = prepare();
    report::TraceOptions trace;
    trace.file = (dir / "trace.json").string();
    trace.point = 1;
    std::vector<size_t> ran;
    SessionHooks hooks;
    hooks.finished = [&](size_t, size_t point, const report::ResultRow&) { ran.push_back(point); };
    const std::string before = test::read_file(dir / "results.json");
    run_one(SessionRun{&p, dir, FolderOptions{true, false}, std::nullopt, &trace, {}}, 2, hooks);
    EXPECT_EQ(ran, std::vector<size_t>{1});
    EXPECT_TRUE(std::filesystem::exists(trace.file));
    EXPECT_EQ(test::read_file(dir / "results.json"), before);
}

}  // namespace
}  // namespace ipisim::experiment
