// Smoke runs of the shipped experiments: every file loads strictly, and each seed experiment
// runs end to end at a reduced size.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "support/paths.h"

using namespace ipisim;

namespace {
const std::string kExperiments = ipisim::test::source_path("experiments");
const std::string kMachines = ipisim::test::source_path("machines");

report::ExperimentResults run_small(const std::string& name, const std::vector<std::string>& overrides) {
    experiment::Experiment e = experiment::load_experiment(kExperiments + "/" + name + ".toml", overrides);
    experiment::RunOptions opt;
    opt.machines_dir = kMachines;
    return experiment::run_experiment(e, opt);
}
}  // namespace

TEST(ShippedExperiments, every_experiment_file_loads_strictly) {
    size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kExperiments)) {
        if (entry.path().extension() != ".toml") continue;
        EXPECT_NO_THROW(experiment::load_experiment(entry.path().string(), {})) << entry.path();
        ++n;
    }
    EXPECT_GE(n, 2u);
}

TEST(ShippedExperiments, seed002_runs_both_barriers_and_the_older_barrier_is_not_faster) {
    report::ExperimentResults r = run_small("seed002_gic_barrier", {"params.rounds=1"});
    ASSERT_EQ(r.rows.size(), 2u);
    const double wmb = r.rows[0].metrics["total_ns"].get<double>();
    const double ishst = r.rows[1].metrics["total_ns"].get<double>();
    EXPECT_GT(wmb, 0);
    EXPECT_GE(wmb, ishst);
    EXPECT_EQ(r.rows[0].metrics["ipis"].get<uint64_t>(), 95u);  // every CPU but the sender
}
