// [sweep] sweeps [params] keys (bare) and [kernel] keys (kernel.X); rows, published rows and
// the seed's table name them the same way; each point's values are views of the one parsed
// document, so their mistakes name the [sweep] value at its line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/published.h"
#include "report/results_files.h"
#include "report/seed_shape.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::string write(const std::string& name, const std::string& text) {
    const auto dir = ::ipisim::test::scratch_path(("ipisim_sweep_test_" + name));
    std::filesystem::remove_all(dir);
    report::write_text_file(dir / "e.toml", text);
    return (dir / "e.toml").string();
}

// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
}

const char* kIpiLatency = R"([experiment]
name = "g"
workload = "ipi_latency"
machine = "toy4_arm"

[kernel]
version = "5.17"

[params]
rounds = 1
sender = 0

[sweep]
kernel.gic_barrier = ["wmb", "dsb_ishst"]
sender = [0, 1]

[[published.rows]]
params = { kernel.gic_barrier = "dsb_ishst", sender = 1 }
metrics = { total_ns = 1 }

[report]
kind = "pivot"
rows = "sender"
columns = "kernel.gic_barrier"
value = "total_ns"
)";

TEST(Sweep, a_kernel_key_sweeps_and_rows_name_it_kernel_dot_key) {
    const Experiment e = load_experiment(write("kernel", kIpiLatency), {});
    ASSERT_EQ(e.sweep.size(), 2U);
    EXPECT_TRUE(e.sweep[0].kernel);
    EXPECT_EQ(e.sweep[0].name, "kernel.gic_barrier");
    EXPECT_EQ(e.sweep[0].path, "sweep.kernel.gic_barrier");
    EXPECT_EQ(e.row_params(), (std::vector<std::string>{"rounds", "sender", "kernel.version", "kernel.gic_barrier"}));

    RunOptions options;
    options.machines_dir = kMachines;
    const report::ExperimentResults r = run_experiment(e, options);
    ASSERT_EQ(r.rows.size(), 4U);
    EXPECT_EQ(r.swept, (std::vector<std::string>{"kernel.gic_barrier", "sender"}));
    EXPECT_EQ(r.rows[0].params["kernel.gic_barrier"], "wmb");
    EXPECT_EQ(r.rows[3].params["kernel.gic_barrier"], "dsb_ishst");
    EXPECT_EQ(r.rows[3].params["sender"], 1);
    // The older barrier is the slower one, from the same sender.
    EXPECT_GT(r.rows[1].metrics["total_ns"].get<double>(), r.rows[3].metrics["total_ns"].get<double>());
    // The published row matches the point with both values.
    EXPECT_EQ(report::find_published(e.published, r.rows[2]), nullptr);
    EXPECT_NE(report::find_published(e.published, r.rows[3]), nullptr);
    EXPECT_NE(report::render_seed_shape(e.shape, r, e.published).find("dsb_ishst"), std::string::npos);
}

TEST(Sweep, the_version_is_read_per_point_and_gates_the_defaults) {
    std::string text =
        replaced(kIpiLatency, "kernel.gic_barrier = [\"wmb\", \"dsb_ishst\"]", "kernel.version = [\"5.17\", \"5.18\"]");
    text = text.substr(0, text.find("[[published.rows]]"));
    const PreparedExperiment p = prepare_experiment(load_experiment(write("version", text), {}), kMachines);
    ASSERT_EQ(p.points.size(), 4U);
    EXPECT_EQ(p.points[0].kernel.gic_barrier, kernel::irqchip::GicIpiBarrier::wmb);
    EXPECT_EQ(p.points[2].kernel.gic_barrier, kernel::irqchip::GicIpiBarrier::dsb_ishst);
}

TEST(Sweep, a_bad_kernel_value_in_a_sweep_names_the_sweep_value_and_its_line) {
    // The published row names the replaced value too: it would be a second mistake, reported at
    // load, before the points' values are checked.
    const std::string text = replaced(replaced(kIpiLatency, "\"dsb_ishst\"]", "\"dsb_sy\"]"),
                                      "kernel.gic_barrier = \"dsb_ishst\"", "kernel.gic_barrier = \"wmb\"");
    const std::string file = write("bad_kernel", text);
    try {
        prepare_experiment(load_experiment(file, {}), kMachines);
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(std::string(e.what()),
                  file + ":14: sweep.kernel.gic_barrier[1]: must be one of \"wmb\", \"dsb_ishst\", got \"dsb_sy\"");
    }
}

// Regression (reliability review E45): a sweep of 2 x 65536 values (2^32 points) was accepted and
// the run never got past building its points; more than a million points is an error at the key
// whose values cross the bound.
TEST(Sweep, a_sweep_of_more_than_a_million_points_is_an_error_at_the_key_that_crosses_it) {
    std::string cpus;
    std::string delays;
    for (int i = 1; i <= 1000; ++i) cpus += (i > 1 ? ", " : "") + std::to_string(i);
    for (int i = 1; i <= 1001; ++i) delays += fmt::format("{}\"{} ns\"", i > 1 ? ", " : "", i);
    const std::string text =
        "[experiment]\nname = \"big\"\nworkload = \"test_echo\"\n[params]\ncpus = 1\n"
        "delay = \"1 ns\"\n[sweep]\ncpus = [" +
        cpus + "]\ndelay = [" + delays + "]\n";
    const std::string file = write("million", text);
    try {
        load_experiment(file, {});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(
            std::string(e.what()),
            file + ":9: sweep.delay: the sweep has 1001000 points, more than the 1000000 one experiment may have");
    }
    // Exactly a million is allowed.
    const std::string at_bound = replaced(text, ", \"1001 ns\"]", "]");
    EXPECT_EQ(load_experiment(write("million_ok", at_bound), {}).points(), 1'000'000U);
}

TEST(Sweep, a_sweep_of_an_unknown_kernel_key_is_an_error) {
    const std::string text = replaced(kIpiLatency, "kernel.gic_barrier = [", "kernel.gic_barier = [");
    try {
        load_experiment(write("unknown_kernel", text), {});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "sweep.kernel.gic_barier");
        EXPECT_EQ(e.line(), 14);
    }
}

TEST(Sweep, a_published_kernel_key_that_rows_do_not_have_is_an_error) {
    const std::string text =
        replaced(kIpiLatency, "params = { kernel.gic_barrier = \"dsb_ishst\"", "params = { kernel.hz = 250");
    try {
        load_experiment(write("published_kernel", text), {});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "published.rows[0].params.kernel.hz");
        EXPECT_EQ(e.problem(), "\"kernel.hz\" is not a key of [kernel]");
    }
}

TEST(Sweep, kernel_keys_are_an_error_for_a_workload_without_a_machine) {
    const std::string text =
        "[experiment]\nname = \"p\"\nworkload = \"ipi_ping\"\n[kernel]\nversion = \"6.18\"\n"
        "[params]\ncpus = 2\nduration = \"1 us\"\ndelay_min = \"1 ns\"\ndelay_max = \"2 ns\"\n"
        "wake_latency = \"1 ns\"\n";
    try {
        load_experiment(write("ping_kernel", text), {});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "kernel");
        EXPECT_EQ(e.problem(), "the ipi_ping workload runs no kernel");
    }
}

}  // namespace
}  // namespace ipisim::experiment
