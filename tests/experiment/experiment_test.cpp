// Loading and running a good experiment in-process with the test-only test_echo workload.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "report/summary.h"
#include "support/paths.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kEcho = ipisim::test::data_path("good_configs/echo_sweep.toml");

report::ExperimentResults run(const std::vector<std::string>& overrides = {}) {
    return run_experiment(load_experiment(kEcho, overrides), RunOptions{});
}

std::filesystem::path scratch(const std::string& name) {
    auto dir = ::ipisim::test::scratch_path(("ipisim_experiment_test_" + name));
    std::filesystem::remove_all(dir);
    return dir;
}

TEST(Experiment, the_experiment_table_is_read) {
    const Experiment e = load_experiment(kEcho, {});
    EXPECT_EQ(e.name(), "echo_sweep");
    EXPECT_EQ(e.table.description, "echoes its parameters");
    EXPECT_EQ(e.table.workload, "test_echo");
    EXPECT_EQ(e.seed(), 7U);
    ASSERT_EQ(e.sweep.size(), 2U);
    EXPECT_EQ(e.sweep[0].name, "cpus");
    EXPECT_EQ(e.sweep[1].name, "delay");
    EXPECT_EQ(e.points(), 6U);
    ASSERT_EQ(e.published.rows.size(), 1U);
    EXPECT_EQ(e.published.source, "made up for the test");
}

TEST(Experiment, a_sweep_runs_the_cartesian_product_with_the_first_key_outermost) {
    const report::ExperimentResults r = run();
    ASSERT_EQ(r.rows.size(), 6U);
    std::vector<std::pair<int64_t, std::string>> points;
    for (const auto& row : r.rows)
        points.emplace_back(row.params["cpus"].get<int64_t>(), row.params["delay"].get<std::string>());
    EXPECT_EQ(points, (std::vector<std::pair<int64_t, std::string>>{
                          {2, "1 ns"}, {2, "2 ns"}, {2, "3 ns"}, {4, "1 ns"}, {4, "2 ns"}, {4, "3 ns"}}));
    EXPECT_EQ(r.rows[4].metrics["delay_ns"], 2.0);
    EXPECT_EQ(r.rows[4].params["label"], "x");  // parameters that are not swept are kept
}

TEST(Experiment, the_same_seed_gives_the_same_fingerprint_and_another_seed_a_different_one) {
    const uint64_t a = report::combined_fingerprint(run().rows);
    const uint64_t b = report::combined_fingerprint(run().rows);
    const uint64_t c = report::combined_fingerprint(run({"experiment.seed=8"}).rows);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(Experiment, overrides_replace_params_and_sweeps) {
    const report::ExperimentResults r = run({"sweep.cpus=[16]", "params.label=y", "experiment.seed=9"});
    EXPECT_EQ(r.seed, 9U);
    ASSERT_EQ(r.rows.size(), 3U);
    EXPECT_EQ(r.rows[0].params["cpus"], 16);
    EXPECT_EQ(r.rows[0].metrics["label"], "y");
}

TEST(Experiment, the_written_config_reruns_to_the_same_fingerprint) {
    PreparedExperiment e =
        prepare_experiment(load_experiment(kEcho, {"experiment.seed=11", "sweep.delay=[\"5 ns\", \"4 ns\"]"}), "");
    const report::ExperimentResults first = run_prepared(e);
    const auto dir = scratch("rerun");
    write_experiment_outputs(e, first, dir);
    const Experiment again = load_experiment((dir / "config.toml").string(), {});
    const report::ExperimentResults second = run_experiment(again, RunOptions{});
    EXPECT_EQ(again.seed(), 11U);
    EXPECT_EQ(report::combined_fingerprint(first.rows), report::combined_fingerprint(second.rows));
    EXPECT_EQ(report::results_json(first), report::results_json(second));
    std::filesystem::remove_all(dir);
}

TEST(Experiment, a_missing_seed_is_written_as_the_default) {
    const auto dir = scratch("default_seed");
    report::write_text_file(dir / "e.toml",
                            "[experiment]\nname = \"e\"\nworkload = \"test_echo\"\n[params]\ncpus = 2\n");
    const PreparedExperiment e = prepare_experiment(load_experiment((dir / "e.toml").string(), {}), "");
    EXPECT_EQ(e.experiment.seed(), 1U);
    EXPECT_NE(resolved_toml(e).find("seed = 1\n"), std::string::npos);
    // Every default of the workload is written too.
    EXPECT_NE(resolved_toml(e).find("delay = \"0 ns\"\n"), std::string::npos) << resolved_toml(e);
    std::filesystem::remove_all(dir);
}

TEST(Experiment, results_files_hold_params_metrics_and_fingerprints) {
    PreparedExperiment e = prepare_experiment(load_experiment(kEcho, {}), "");
    const report::ExperimentResults r = run_prepared(e);
    const auto dir = scratch("files");
    write_experiment_outputs(e, r, dir);
    const auto json = nlohmann::ordered_json::parse(test::read_file(dir / "results.json"));
    EXPECT_EQ(json["experiment"], "echo_sweep");
    EXPECT_EQ(json["seed"], 7);
    EXPECT_EQ(json["fingerprint"], report::fingerprint_hex(report::combined_fingerprint(r.rows)));
    ASSERT_EQ(json["rows"].size(), 6U);
    EXPECT_EQ(json["rows"][1]["params"]["delay"], "2 ns");
    EXPECT_EQ(json["rows"][1]["metrics"]["cpus"], 2);
    EXPECT_EQ(json["rows"][1]["fingerprint"].get<std::string>().size(), 16U);

    const std::string csv = test::read_file(dir / "results.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "cpus,delay,label,cpus,delay_ns,label");
    EXPECT_NE(csv.find("\n4,3 ns,x,4,3.0,x\n"), std::string::npos) << csv;
    std::filesystem::remove_all(dir);
}

TEST(Experiment, published_values_appear_beside_predictions_with_relative_error) {
    const Experiment e = load_experiment(kEcho, {});
    const std::string summary = report::render_summary(run_experiment(e, RunOptions{}), e.published);
    EXPECT_NE(summary.find("params: label=x\n"), std::string::npos) << summary;
    EXPECT_NE(summary.find("published"), std::string::npos) << summary;
    // cpus=4, delay=2 ns predicts 2 ns against a published 2.5 ns: -20%.
    EXPECT_NE(summary.find("-20.0%"), std::string::npos) << summary;
    EXPECT_NE(summary.find("published: made up for the test\n"), std::string::npos);
    EXPECT_NE(summary.find("fingerprint: "), std::string::npos);
}

TEST(Experiment, the_run_fingerprint_depends_on_every_row_and_their_order) {
    report::ResultRow a;
    a.fingerprint = 1;
    report::ResultRow b;
    b.fingerprint = 2;
    EXPECT_NE(report::combined_fingerprint({a, b}), report::combined_fingerprint({b, a}));
    EXPECT_NE(report::combined_fingerprint({a}), report::combined_fingerprint({a, a}));
    EXPECT_EQ(report::fingerprint_hex(0xabcULL), "0000000000000abc");
}

}  // namespace
}  // namespace ipisim::experiment
