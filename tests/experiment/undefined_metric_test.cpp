// A metric a point cannot define (0/0) is never written silently: it is null in the row, with
// its reason under "undefined", in results.json and in the row read back from it.
#include <gtest/gtest.h>

#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "support/paths.h"

namespace ipisim::experiment {
namespace {

const std::string kEcho = ipisim::test::data_path("good_configs/echo_sweep.toml");

TEST(UndefinedMetric, a_0_over_0_metric_is_null_with_its_reason_and_the_others_keep_their_values) {
    // test_echo's label "0/0" makes delay_ns 0/0 (at the points where delay is 0 ns).
    const report::ExperimentResults r = run_experiment(
        load_experiment(kEcho, {"params.label=\"0/0\"", "sweep.delay=[\"0 ns\", \"2 ns\"]"}), RunOptions{});
    ASSERT_EQ(r.rows.size(), 4U);
    const report::ResultRow& zero = r.rows[0];
    EXPECT_TRUE(zero.metrics["delay_ns"].is_null());
    EXPECT_EQ(zero.undefined["delay_ns"], "0/0: nothing was measured in the window");
    EXPECT_EQ(zero.metrics["cpus"], zero.params["cpus"]);
    const report::ResultRow& two = r.rows[1];
    EXPECT_EQ(two.metrics["delay_ns"], 0.001);  // 2 ns / 2000 ps: defined
    EXPECT_TRUE(two.undefined.empty());

    const nlohmann::ordered_json j = report::row_json(zero);
    EXPECT_TRUE(j["metrics"]["delay_ns"].is_null());
    EXPECT_EQ(j["undefined"]["delay_ns"], "0/0: nothing was measured in the window");
    EXPECT_FALSE(report::row_json(two).contains("undefined"));
}

}  // namespace
}  // namespace ipisim::experiment
