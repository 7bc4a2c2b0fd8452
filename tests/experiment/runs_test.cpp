// [experiment] runs = N: every point runs N times, run r with seed + r, and its metrics are the
// mean of the runs (a published "average of N runs"), each run's value kept in metrics_runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

const char* kTlbFlush2 = R"([experiment]
name = "t"
workload = "tlb_flush2"
machine = "toy4"

[kernel]
version = "6.13"

[params]
threads = 4
warmup = "50 us"
measure = "2 ms"
)";

report::ExperimentResults run(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
    PreparedExperiment prepared = prepare_experiment(load_experiment(file.string(), overrides), kMachines);
    return run_prepared(prepared);
}

TEST(Runs, a_point_run_three_times_reports_the_mean_of_the_three_seeds_runs) {
    const auto dir = ::ipisim::test::scratch_path("ipisim_runs_test");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    report::write_text_file(dir / "e.toml", kTlbFlush2);
    std::vector<double> each;
    std::vector<uint64_t> fingerprints;
    for (int s = 5; s < 8; ++s) {
        const report::ExperimentResults one = run(dir / "e.toml", {"experiment.seed=" + std::to_string(s)});
        each.push_back(one.rows.at(0).metrics.at("loops_per_sec").get<double>());
        fingerprints.push_back(one.rows.at(0).fingerprint);
    }
    ASSERT_NE(each[0], each[1]);  // the seeds differ (the steady start's phases)
    const report::ExperimentResults three = run(dir / "e.toml", {"experiment.seed=5", "experiment.runs=3"});
    const report::ResultRow& row = three.rows.at(0);
    EXPECT_EQ(three.runs, 3U);
    EXPECT_DOUBLE_EQ(row.metrics.at("loops_per_sec").get<double>(), (each[0] + each[1] + each[2]) / 3);
    ASSERT_EQ(row.metrics_runs.at("loops_per_sec").size(), 3U);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(row.metrics_runs.at("loops_per_sec")[i].get<double>(), each[i]);
    EXPECT_TRUE(row.metrics.at("loops").is_number_integer());  // an integer metric stays one
    EXPECT_NE(row.fingerprint, fingerprints[0]);               // all three runs are in it
    // results.json keeps the runs and the per-run values, and reads them back.
    report::write_text_file(dir / "results.json", report::results_json(three).dump(2));
    const report::ExperimentResults back = report::read_results_json(dir / "results.json");
    EXPECT_EQ(back.runs, 3U);
    EXPECT_EQ(back.rows.at(0).metrics_runs, row.metrics_runs);
}

}  // namespace
}  // namespace ipisim::experiment
