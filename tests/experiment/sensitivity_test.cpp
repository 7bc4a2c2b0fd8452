// experiment/sensitivity.h: one-at-a-time screening runs each ranged cost at its range ends (the
// same runs as --set machine.KEY at those values), ranks the costs by their swing, screens the
// gain of a swept mechanism switch, and is the same for any number of threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/run_journal.h"
#include "experiment/runner.h"
#include "experiment/sensitivity.h"
#include "report/sensitivity_text.h"
#include "report/tornado.h"
#include "support/paths.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

// toy4_arm with ranged irq_entry (100-300 ns) and a zero-width range on eoi, and ipi_latency on
// it with both GIC barriers.
std::string toy_dir(const std::string& router_range = "") {
    // One folder per test: ctest runs the tests of this file in parallel.
    const auto dir = ::ipisim::test::scratch_path(
        (std::string("ipisim_sensitivity_test_") + testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "machines");
    std::string m = test::read_file(kMachines + "/toy4_arm.toml");
    auto replace = [&m](const std::string& from, const std::string& to) {
        const size_t at = m.find(from);
        if (at != std::string::npos) m.replace(at, from.size(), to);
    };
    replace("irq_entry = \"200 ns\"",
            "irq_entry = { value = \"200 ns\", mark = \"A\", range = [\"100 ns\", \"300 ns\"], source = \"t\" }");
    replace("eoi = \"50 ns\"",
            "eoi = { value = \"50 ns\", mark = \"A\", range = [\"50 ns\", \"50 ns\"], source = \"t\" }");
    if (!router_range.empty()) {
        replace("router_service = \"0 ns\"",
                "router_service = { value = \"0 ns\", mark = \"A\", range = " + router_range + ", source = \"t\" }");
    }
    std::ofstream(dir / "machines" / "toyr.toml") << m;
    std::ofstream(dir / "toy.toml") << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toyr\"\n"
                                       "[kernel]\nversion = \"6.6\"\n[params]\nrounds = 2\nsender = 0\n"
                                       "[sweep]\nkernel.gic_barrier = [\"wmb\", \"dsb_ishst\"]\n";
    return dir.string();
}

PreparedExperiment prepare(const std::string& dir, const std::vector<std::string>& overrides = {}) {
    return prepare_experiment(load_experiment(dir + "/toy.toml", overrides), dir + "/machines");
}

TEST(Sensitivity, a_cost_at_its_range_end_runs_as_the_same_value_given_with_set) {
    const std::string dir = toy_dir();
    const PreparedExperiment p = prepare(dir);
    const SensitivityRuns runs = run_sensitivity(p, 1);
    ASSERT_EQ(runs.costs.size(), 2U);
    EXPECT_EQ(runs.costs[0].cost->key, "cpu.irq_entry");
    PreparedExperiment low = prepare(dir, {"machine.cpu.irq_entry=100 ns"});
    PreparedExperiment high = prepare(dir, {"machine.cpu.irq_entry=300 ns"});
    for (size_t point = 0; point < 2; ++point) {
        EXPECT_EQ(runs.low[0][point].dump(), run_point(low, point).metrics.dump());
        EXPECT_EQ(runs.high[0][point].dump(), run_point(high, point).metrics.dump());
    }
}

TEST(Sensitivity, costs_are_ranked_by_their_swing_and_a_zero_width_range_has_none) {
    const std::string dir = toy_dir();
    const PreparedExperiment p = prepare(dir);
    const SensitivityRuns runs = run_sensitivity(p, 2);
    const auto j = sensitivity_json(p, runs, {"ns_per_call"});
    // Two points, then the gain wmb/dsb_ishst.
    ASSERT_EQ(j["quantities"].size(), 3U);
    for (const auto& q : j["quantities"]) {
        ASSERT_EQ(q["effects"].size(), 2U);
        EXPECT_EQ(q["effects"][0]["key"], "cpu.irq_entry");
        EXPECT_EQ(q["effects"][1]["key"], "cpu.eoi");
        EXPECT_EQ(q["effects"][1]["swing"].get<double>(), 0.0);
        EXPECT_EQ(q["effects"][1]["low"], q["nominal"]);
    }
    const auto& call = j["quantities"][0];
    EXPECT_GT(call["effects"][0]["swing"].get<double>(), 0.0);  // a slower entry, a slower call
    EXPECT_DOUBLE_EQ(call["effects"][0]["relative"].get<double>(),
                     call["effects"][0]["swing"].get<double>() / call["nominal"].get<double>());
    const auto& gain = j["quantities"][2];
    EXPECT_EQ(gain["name"], "gain kernel.gic_barrier=wmb/dsb_ishst ns_per_call");
    EXPECT_DOUBLE_EQ(gain["nominal"].get<double>(),
                     runs.nominal[0]["ns_per_call"].get<double>() / runs.nominal[1]["ns_per_call"].get<double>());
    const std::string text = report::sensitivity_text(j, 1);
    EXPECT_NE(text.find("gain kernel.gic_barrier=wmb/dsb_ishst ns_per_call"), std::string::npos);
    EXPECT_NE(text.find("cpu.irq_entry"), std::string::npos);
    EXPECT_EQ(text.find("cpu.eoi"), std::string::npos);  // --top 1
    const std::string plot = report::tornado_script(gain, 10, "t.svg", "t.png");
    EXPECT_NE(plot.find("\"cpu.irq_entry\" 2"), std::string::npos);  // largest swing on top
}

TEST(Sensitivity, a_fitted_cost_is_screened_at_the_ends_of_its_fit_interval_not_of_its_range) {
    const std::string dir = toy_dir();
    std::string m = test::read_file(dir + "/machines/toyr.toml");
    const std::string from =
        "irq_entry = { value = \"200 ns\", mark = \"A\", range = [\"100 ns\", \"300 ns\"], source = \"t\" }";
    const size_t at = m.find(from);
    ASSERT_NE(at, std::string::npos);
    m.replace(at, from.size(),
              "irq_entry = { value = \"200 ns\", mark = \"F\", range = [\"100 ns\", \"300 ns\"], "
              "fit = [\"180 ns\", \"230 ns\"], source = \"t\", target = \"t\" }");
    std::ofstream(dir + "/machines/toyr.toml") << m;
    const PreparedExperiment p = prepare(dir);
    const SensitivityRuns runs = run_sensitivity(p, 1);
    ASSERT_EQ(runs.costs[0].cost->key, "cpu.irq_entry");
    EXPECT_EQ(runs.costs[0].lo, 180'000);
    EXPECT_EQ(runs.costs[0].hi, 230'000);
    EXPECT_TRUE(runs.costs[0].fit);
    EXPECT_FALSE(runs.costs[1].fit);  // eoi: its range
    PreparedExperiment low = prepare(dir, {"machine.cpu.irq_entry=180 ns"});
    EXPECT_EQ(runs.low[0][0].dump(), run_point(low, 0).metrics.dump());
    const auto j = sensitivity_json(p, runs, {"ns_per_call"});
    EXPECT_EQ(j["costs"][0]["over"], "fit interval");
    EXPECT_EQ(j["costs"][1]["over"], "range");
    EXPECT_NE(report::sensitivity_text(j, 2).find("180 ns .. 230 ns (fit)"), std::string::npos)
        << report::sensitivity_text(j, 2);
}

TEST(Sensitivity, a_range_end_the_machine_refuses_is_reported_with_its_reason_and_no_swing) {
    // router_service up to 1 us, longer than the toy's 500 ns self delivery.
    const std::string dir = toy_dir("[\"0 ns\", \"1 us\"]");
    const PreparedExperiment p = prepare(dir);
    const SensitivityRuns runs = run_sensitivity(p, 2);
    ASSERT_EQ(runs.costs.size(), 3U);
    EXPECT_EQ(runs.costs[2].cost->key, "intc.fabric.router_service");
    EXPECT_EQ(runs.low_refused[2], "");
    EXPECT_NE(runs.high_refused[2].find("router_service"), std::string::npos);
    const auto j = sensitivity_json(p, runs, {"ns_per_call"});
    const auto& effects = j["quantities"][0]["effects"];
    const auto it = std::find_if(effects.begin(), effects.end(),
                                 [](const auto& f) { return f["key"] == "intc.fabric.router_service"; });
    ASSERT_NE(it, effects.end());
    EXPECT_TRUE((*it)["high"].is_null());
    EXPECT_EQ((*it)["swing"].get<double>(), 0.0);
    EXPECT_TRUE(it->contains("high_refused"));
    EXPECT_NE(report::sensitivity_text(j, 5).find("intc.fabric.router_service at its high end:"), std::string::npos);
}

TEST(Sensitivity, a_quantity_no_cost_moves_says_so_and_its_tornado_plot_still_has_an_axis) {
    const std::string dir = toy_dir();
    const PreparedExperiment p = prepare(dir);
    const auto j = sensitivity_json(p, run_sensitivity(p, 1), {"ipis"});  // a count of sends, no cost moves it
    ASSERT_FALSE(j["quantities"].empty());
    const std::string text = report::sensitivity_text(j, 5);
    EXPECT_NE(text.find("no ranged cost moves it: each of the 2 gives the nominal value at both ends"),
              std::string::npos);
    EXPECT_EQ(text.find("cpu.irq_entry"), std::string::npos);  // no table of zero swings
    const std::string plot = report::tornado_script(j["quantities"][0], 10, "t.svg", "t.png");
    EXPECT_NE(plot.find("set xrange [-1:1]"), std::string::npos);
    const auto moved = sensitivity_json(p, run_sensitivity(p, 1), {"ns_per_call"});
    EXPECT_EQ(report::tornado_script(moved["quantities"][0], 10, "t.svg", "t.png").find("set xrange"),
              std::string::npos);
}

TEST(Sensitivity, one_or_two_threads_give_the_same_screening) {
    const std::string dir = toy_dir();
    const PreparedExperiment p = prepare(dir);
    const auto a = sensitivity_json(p, run_sensitivity(p, 1), {"ns_per_call", "total_ns"});
    const auto b = sensitivity_json(p, run_sensitivity(p, 2), {"ns_per_call", "total_ns"});
    EXPECT_EQ(a.dump(), b.dump());
}

const nlohmann::ordered_json kIdentity = {{"experiment", "toy"}, {"config_hash", "0123"}, {"runs", 10}};

TEST(RunJournal, a_resumed_journal_keeps_the_finished_runs_and_a_new_one_none) {
    const std::filesystem::path file = test::scratch_path("journal_keeps") / "sensitivity_runs.jsonl";
    {
        RunJournal j(file, "sensitivity of toy", kIdentity, 10, 10, false);
        j.record(3, {{"metrics", {{"x", 1.5}}}});
        j.record(0, {{"metrics", {{"x", 0.1}, {"y", nullptr}}}});
        EXPECT_EQ(j.close_for_interrupt(), "sensitivity of toy: 2 of 10 runs in " + file.string());
        j.record(4, {{"metrics", {{"x", 4.0}}}});  // after the interrupt: not written
    }
    RunJournal resumed(file, "sensitivity of toy", kIdentity, 10, 10, true);
    EXPECT_EQ(resumed.kept(), 2U);
    ASSERT_NE(resumed.find(3), nullptr);
    EXPECT_EQ(resumed.find(3)->dump(), R"({"metrics":{"x":1.5}})");
    EXPECT_EQ(resumed.find(0)->dump(), R"({"metrics":{"x":0.1,"y":null}})");
    EXPECT_EQ(resumed.find(4), nullptr);
    RunJournal fresh(file, "sensitivity of toy", kIdentity, 10, 10, false);
    EXPECT_EQ(fresh.kept(), 0U);
}

TEST(RunJournal, a_torn_last_line_is_dropped_and_anything_else_foreign_is_refused_at_resume) {
    const std::filesystem::path file = test::scratch_path("journal_refuses") / "sensitivity_runs.jsonl";
    std::filesystem::create_directories(file.parent_path());
    const std::string head = kIdentity.dump() + "\n" + R"({"run":1,"metrics":{"x":1}})" + "\n";
    std::ofstream(file) << head << R"({"run":2,"metr)";
    {
        RunJournal j(file, "sensitivity of toy", kIdentity, 10, 10, true);
        EXPECT_EQ(j.kept(), 1U);
    }
    EXPECT_EQ(test::read_file(file.string()), head);  // rewritten without the torn line
    auto refused = [&](const std::string& text, const nlohmann::ordered_json& identity, const std::string& why) {
        std::ofstream(file) << text;
        try {
            RunJournal j(file, "sensitivity of toy", identity, 10, 10, true);
            ADD_FAILURE() << "resumed " << text;
        } catch (const config::ConfigError& e) {
            EXPECT_EQ(e.file(), "--resume");
            EXPECT_NE(e.problem().find(why), std::string::npos) << e.problem();
        }
        EXPECT_EQ(test::read_file(file.string()), text);  // a refused journal is left as it was
    };
    nlohmann::ordered_json other = kIdentity;
    other["config_hash"] = "4567";
    refused(head, other, "holds the runs of other work");
    refused("results\n", kIdentity, "not a journal of runs");
    refused(kIdentity.dump() + "\n{}\n" + R"({"run":1,"metrics":{}})" + "\n", kIdentity,
            "line 2 is not a finished run");
    refused(kIdentity.dump() + "\n" + R"({"run":10,"metrics":{}})" + "\n", kIdentity, "run 10 of work of 10 runs");
}

TEST(Sensitivity, a_screen_resumed_from_its_journal_runs_only_the_missing_runs_and_gives_the_same_screening) {
    const std::string dir = toy_dir();
    PreparedExperiment p = prepare(dir);
    SensitivityPlan plan = plan_sensitivity(p);
    ASSERT_EQ(plan.runs(), 10U);  // 5 machines (nominal, 2 costs x 2 ends) x 2 points
    const std::filesystem::path file = std::filesystem::path(dir) / "sensitivity_runs.jsonl";
    SensitivityRuns whole;
    {
        RunJournal j(file, "sensitivity of toy", kIdentity, plan.runs(), plan.runs_to_do(), false);
        whole = run_sensitivity(plan, 2, {}, &j);
        EXPECT_EQ(j.close_for_interrupt(), "");  // every run is in
    }
    // Keep runs 0-3 and mark run 2 so that a rerun would show.
    std::istringstream in(test::read_file(file.string()));
    std::string line;
    std::string kept;
    std::getline(in, line);
    kept += line + "\n";
    while (std::getline(in, line)) {
        auto j = nlohmann::ordered_json::parse(line);
        if (j["run"].get<size_t>() >= 4) continue;
        if (j["run"].get<size_t>() == 2) j["metrics"]["marked"] = true;
        kept += j.dump() + "\n";
    }
    std::ofstream(file) << kept;
    std::vector<size_t> ran;
    RunJournal j(file, "sensitivity of toy", kIdentity, plan.runs(), plan.runs_to_do(), true);
    const SensitivityRuns resumed = run_sensitivity(
        plan, 2,
        [&](size_t done, size_t total, size_t run) {
            EXPECT_EQ(done, ran.size() + 1);
            EXPECT_EQ(total, 6U);
            ran.push_back(run);
        },
        &j);
    std::sort(ran.begin(), ran.end());
    EXPECT_EQ(ran, (std::vector<size_t>{4, 5, 6, 7, 8, 9}));  // the runs the journal did not keep
    EXPECT_EQ(sensitivity_run_text(plan, 9), "cpu.eoi high, point 1");
    EXPECT_EQ(sensitivity_run_text(plan, 1), "nominal, point 1");
    EXPECT_TRUE(resumed.low[0][0].contains("marked"));  // run 2: machine 1 (irq_entry low), point 0, from the journal
    EXPECT_EQ(resumed.high[1][1].dump(), whole.high[1][1].dump());  // run 9, run again
    const auto a = sensitivity_json(p, whole, {"ns_per_call"});
    const auto b = sensitivity_json(p, resumed, {"ns_per_call"});
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_EQ(j.kept(), 4U);
}

}  // namespace
}  // namespace ipisim::experiment
