// config.toml is truly resolved: every default written ([kernel] with its version-derived
// values), the machine inline, so the file alone reruns to the same fingerprints.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "support/paths.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::filesystem::path scratch(const std::string& name) {
    auto dir = ::ipisim::test::scratch_path(("ipisim_resolved_test_" + name));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

const char* kTlbFlush2 = R"([experiment]
name = "t"
workload = "tlb_flush2"
machine = "toy4"

[kernel]
version = "6.13"

[params]
threads = 2
warmup = "50 us"
measure = "100 us"

[sweep]
kernel.tlb_flush = ["ipi", "invlpgb"]
threads = [2, 4]
)";

struct Outcome {
    PreparedExperiment prepared;
    report::ExperimentResults results;
};

Outcome run_file(const std::string& file, const std::vector<std::string>& overrides, const std::string& machines) {
    Outcome r{prepare_experiment(load_experiment(file, overrides), machines), {}};
    r.results = run_prepared(r.prepared);
    return r;
}

TEST(ResolvedConfig, the_resolved_config_alone_reproduces_a_runs_fingerprints) {
    const auto dir = scratch("alone");
    report::write_text_file(dir / "e.toml", kTlbFlush2);
    // A machine override is part of the run, and so of config.toml.
    const Outcome first = run_file((dir / "e.toml").string(), {"machine.coherence.same_l3=\"70 ns\""}, kMachines);
    write_experiment_outputs(first.prepared, first.results, dir / "out");
    const std::string config = test::read_file(dir / "out" / "config.toml");
    // No machines directory: the machine comes from the file itself.
    const Outcome again = run_file((dir / "out" / "config.toml").string(), {}, (dir / "no_machines").string());
    ASSERT_EQ(again.results.rows.size(), 4U);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(again.results.rows[i].fingerprint, first.results.rows[i].fingerprint);
        EXPECT_EQ(again.results.rows[i].metrics, first.results.rows[i].metrics);
    }

    // The override changed the run.
    const Outcome plain = run_file((dir / "e.toml").string(), {}, kMachines);
    EXPECT_NE(plain.results.rows[1].fingerprint, first.results.rows[1].fingerprint);

    // Every default is written, the version-derived ones included.
    EXPECT_NE(
        config.find("\n[kernel]\nversion = \"6.13\"\ntlb_flush = \"ipi\"\nmadvise_lru_add_drain = true\n"
                    "lazy_mm_cpumask = false\n"
                    "fault_lock = \"vma_lock\"\nmadvise_lock = \"mmap_lock\"\nfolio_batch_size = 31\ncall_any_policy = "
                    "\"same_node\"\nmemcg_depth = 3\nhz = 250\n"),
        std::string::npos)
        << config;
    EXPECT_NE(config.find("mode = \"threads\"\n"), std::string::npos) << config;
    EXPECT_NE(config.find("\n[machine]\n"), std::string::npos) << config;
    // The machine is written complete (hw::write_machine); the overridden cost is marked "set".
    EXPECT_NE(config.find("same_l3 = { value = \"70 ns\", mark = \"set\", source = \"--set\" }"), std::string::npos)
        << config;
    EXPECT_NE(config.find("[sweep]\nkernel.tlb_flush = [\"ipi\", \"invlpgb\"]\nthreads = [2, 4]\n"), std::string::npos)
        << config;
}

TEST(ResolvedConfig, a_default_that_follows_a_swept_version_is_left_to_each_point) {
    const auto dir = scratch("versions");
    std::string text = kTlbFlush2;
    const std::string from = "kernel.tlb_flush = [\"ipi\", \"invlpgb\"]";
    text.replace(text.find(from), from.size(), "kernel.version = [\"6.13\", \"6.14\"]");
    report::write_text_file(dir / "e.toml", text);
    const Outcome first = run_file((dir / "e.toml").string(), {}, kMachines);
    EXPECT_TRUE(first.prepared.points[0].kernel.madvise_lru_add_drain);
    EXPECT_FALSE(first.prepared.points[2].kernel.madvise_lru_add_drain);
    const std::string config = resolved_toml(first.prepared);
    EXPECT_EQ(config.find("madvise_lru_add_drain"), std::string::npos) << config;
    EXPECT_NE(config.find("call_any_policy = \"same_node\""), std::string::npos) << config;  // same for both
    report::write_text_file(dir / "config.toml", config);
    const Outcome again = run_file((dir / "config.toml").string(), {}, kMachines);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(again.results.rows[i].fingerprint, first.results.rows[i].fingerprint);
}

TEST(ResolvedConfig, an_embedded_machine_is_used_and_its_mistakes_are_located_in_the_experiment) {
    const auto dir = scratch("embedded");
    report::write_text_file(dir / "e.toml", kTlbFlush2);
    const Outcome first = run_file((dir / "e.toml").string(), {}, kMachines);
    std::string config = resolved_toml(first.prepared);
    // Drop the name: the machine is the embedded one.
    config.erase(config.find("machine = \"toy4\"\n"), 17);
    report::write_text_file(dir / "embedded.toml", config);
    const Outcome again = run_file((dir / "embedded.toml").string(), {}, "");
    EXPECT_EQ(again.results.rows[3].fingerprint, first.results.rows[3].fingerprint);

    const size_t at = config.find("same_l3 = \"50 ns\"");
    ASSERT_NE(at, std::string::npos) << config;
    config.replace(at, 17, "same_l3 = \"50 parsecs\"");
    report::write_text_file(dir / "bad.toml", config);
    const int line = static_cast<int>(std::count(config.begin(), config.begin() + static_cast<long>(at), '\n')) + 1;
    try {
        run_file((dir / "bad.toml").string(), {}, "");
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.file(), (dir / "bad.toml").string());
        EXPECT_EQ(e.line(), line);
        EXPECT_EQ(e.key(), "machine.coherence.same_l3");
    }
}

}  // namespace
}  // namespace ipisim::experiment
