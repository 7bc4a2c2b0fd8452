// What results say about where they come from (issue 14 part 6): the ipisim version, the git
// commit of the build, the machine (name, description, a hash of its resolved text) and the
// kernel version; and which published values apply to a run (PublishedScope).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "experiment/build_info.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::string toy_file() {
    const auto path = ::ipisim::test::scratch_path("ipisim_provenance_test.toml");
    std::ofstream(path) << "[experiment]\nname = \"toy\"\nworkload = \"ipi_latency\"\nmachine = \"toy4_arm\"\n"
                           "[kernel]\nversion = \"6.6\"\n[params]\nrounds = 2\nsender = 0\n";
    return path.string();
}

report::ExperimentResults run_toy(const std::vector<std::string>& overrides = {}) {
    RunOptions options;
    options.machines_dir = kMachines;
    return run_experiment(load_experiment(toy_file(), overrides), options);
}

TEST(Provenance, results_name_the_version_commit_machine_and_kernel_they_ran_with) {
    const report::ExperimentResults r = run_toy();
    EXPECT_EQ(r.ipisim_version, IPISIM_VERSION);
    EXPECT_EQ(r.git_commit, std::string(git_commit()));
    EXPECT_FALSE(r.git_commit.empty());
    EXPECT_EQ(r.machine, "toy4_arm");
    EXPECT_EQ(r.machine_description, "Toy arm64: 2 packages x 2 cores, no SMT; GICv3");
    EXPECT_EQ(r.kernel, "6.6");
    EXPECT_EQ(r.machine_hash.size(), 16U);
    EXPECT_EQ(run_toy().machine_hash, r.machine_hash);  // the same machine, the same hash
}

TEST(Provenance, a_machine_override_changes_the_machine_hash) {
    const report::ExperimentResults plain = run_toy();
    const report::ExperimentResults changed = run_toy({"machine.coherence.same_l3=\"60 ns\""});
    EXPECT_NE(changed.machine_hash, plain.machine_hash);
}

// Regression (docs/reports.md): a processes-mode run of seed000 was compared with the
// published threads-mode numbers. The file's own values define the published setup.
TEST(PublishedScope, the_scope_is_the_files_own_params_kernel_sweep_and_machine_before_set) {
    const Experiment e = load_experiment(ipisim::test::source_path("experiments/seed000_rar.toml"),
                                         {"params.mode=\"processes\"", "machine.coherence.same_l3=\"60 ns\""});
    EXPECT_EQ(e.file_setup.values["mode"], "threads");
    EXPECT_EQ(e.file_setup.values["kernel.version"], "6.18");
    EXPECT_EQ(e.file_setup.swept, (std::vector<std::string>{"kernel.tlb_flush", "threads"}));  // toml++ order
    EXPECT_EQ(e.file_setup.machine, "sapphire_rapids_30c");
    EXPECT_EQ(e.file_setup.machine_overrides, std::vector<std::string>{"coherence.same_l3=\"60 ns\""});
}

}  // namespace
}  // namespace ipisim::experiment
