// Every mistake is reported before the first sweep point runs (issue 12 part 2), as a
// ConfigError naming the file, line and key: each test is named after the mistake.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "support/paths.h"
#include "support/scratch_path.h"

namespace ipisim::experiment {
namespace {

const std::string kMachines = ipisim::test::source_path("machines");

std::filesystem::path scratch(const std::string& name) {
    auto dir = ::ipisim::test::scratch_path(("ipisim_checks_test_" + name));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// A tlb_flush2 experiment on `machine` (lines 1-13), with `extra` appended from line 14.
std::string tlb_flush2(const std::string& machine, const std::string& extra = "") {
    return "[experiment]\n"               // 1
           "name = \"t\"\n"               // 2
           "workload = \"tlb_flush2\"\n"  // 3
           "machine = \"" +
           machine +
           "\"\n"                                           // 4
           "[kernel]\n"                                     // 5
           "version = \"6.18\"\n"                           // 6
           "[params]\n"                                     // 7
           "threads = 1\n"                                  // 8
           "warmup = \"100 us\"\n"                          // 9
           "measure = \"100 us\"\n"                         // 10
           "[sweep]\n"                                      // 11
           "threads = [1, 2]\n"                             // 12
           "kernel.tlb_flush = [\"ipi\", \"rar-naive\"]\n"  // 13
           + extra;
}

struct Outcome {
    std::string error;  // "" when accepted
    size_t points_run = 0;
};

Outcome run_text(const std::string& name, const std::string& text, const std::vector<std::string>& overrides = {}) {
    const auto dir = scratch(name);
    const std::string file = (dir / "e.toml").string();
    report::write_text_file(file, text);
    Outcome out;
    try {
        RunOptions options;
        options.machines_dir = kMachines;
        options.on_row = [&](size_t, const report::ResultRow&) { ++out.points_run; };
        run_experiment(load_experiment(file, overrides), options);
    } catch (const config::ConfigError& e) {
        out.error = e.what();
        const std::string prefix = file + ":";
        if (out.error.rfind(file, 0) == 0) out.error = "FILE" + out.error.substr(file.size());
    }
    return out;
}

TEST(Checks, a_flush_protocol_the_machine_lacks_is_an_error_at_its_sweep_value_before_any_point_runs) {
    const Outcome o = run_text("no_rar", tlb_flush2("milan_36c"));
    EXPECT_EQ(o.error,
              "FILE:13: sweep.kernel.tlb_flush[1]: \"rar-naive\" on machine milan_36c: needs a machine with RAR "
              "(tlb.rar_payloads > 0)");
    EXPECT_EQ(o.points_run, 0U);
}

TEST(Checks, a_bad_value_late_in_a_sweep_is_reported_before_any_point_runs) {
    const Outcome o = run_text("late", tlb_flush2("toy2"));  // toy2 has 2 CPUs: threads = 2 is fine
    EXPECT_EQ(o.error, "");
    const Outcome late = run_text("late2", tlb_flush2("toy2"), {"sweep.threads=[1, 2, 3]"});
    EXPECT_EQ(late.error, "--set: sweep.threads[2]: machine toy2 has 2 CPUs");
    EXPECT_EQ(late.points_run, 0U);
    const Outcome in_file =
        run_text("late3", tlb_flush2("toy2").replace(tlb_flush2("toy2").find("[1, 2]"), 6, "[1, 2, 0]"));
    EXPECT_EQ(in_file.error, "FILE:12: sweep.threads[2]: must be at least 1");
    EXPECT_EQ(in_file.points_run, 0U);
}

TEST(Checks, a_bad_params_value_of_a_swept_key_is_an_error_though_the_sweep_replaces_it) {
    std::string text = tlb_flush2("toy2");
    text.replace(text.find("threads = 1\n"), 12, "threads = 0\n");
    EXPECT_EQ(run_text("base", text).error, "FILE:8: params.threads: must be at least 1");
}

TEST(Checks, an_x86_only_workload_on_arm64_is_an_error_at_the_machine) {
    const Outcome o = run_text("arm", tlb_flush2("toy4_arm"));
    EXPECT_EQ(o.error,
              "FILE:4: experiment.machine: the tlb_flush2 workload models x86 code; machine toy4_arm is not x86");
}

TEST(Checks, a_kernel_key_that_does_not_apply_to_the_machine_is_an_error) {
    std::string text = tlb_flush2("toy2");
    text.replace(text.find("version = \"6.18\"\n"), 17, "version = \"6.18\"\ngic_barrier = \"wmb\"\n");
    EXPECT_EQ(run_text("gic_on_x86", text).error, "FILE:7: kernel.gic_barrier: only meaningful when gicv3");
}

TEST(Checks, ipi_ping_with_a_machine_is_an_error) {
    const Outcome o = run_text("ping",
                               "[experiment]\nname = \"p\"\nworkload = \"ipi_ping\"\nmachine = \"toy4\"\n"
                               "[params]\ncpus = 2\nduration = \"1 us\"\ndelay_min = \"1 ns\"\n"
                               "delay_max = \"2 ns\"\nwake_latency = \"1 ns\"\n");
    EXPECT_EQ(o.error,
              "FILE:4: experiment.machine: the ipi_ping workload runs no machine model; remove "
              "experiment.machine");
}

TEST(Checks, a_set_on_a_swept_key_is_an_error) {
    const Outcome o = run_text("set_swept", tlb_flush2("toy2"), {"params.threads=2"});
    EXPECT_NE(o.error.find("--set: params.threads: is swept (sweep.threads at "), std::string::npos) << o.error;
    const Outcome k = run_text("set_swept_kernel", tlb_flush2("toy2"), {"kernel.tlb_flush=invlpgb"});
    EXPECT_NE(k.error.find("--set: kernel.tlb_flush: is swept (sweep.kernel.tlb_flush at "), std::string::npos)
        << k.error;
}

TEST(Checks, a_set_on_a_key_a_set_sweep_sweeps_names_the_set_not_a_line) {
    const Outcome o = run_text("set_swept_by_set", tlb_flush2("toy2"), {"sweep.threads=[1, 2]", "params.threads=2"});
    EXPECT_NE(o.error.find("--set: params.threads: is swept (sweep.threads set by --set); override sweep.threads "
                           "instead"),
              std::string::npos)
        << o.error;
}

TEST(Checks, a_missing_machine_names_the_experiment_file_and_line) {
    const Outcome o = run_text("missing", tlb_flush2("nope"));
    EXPECT_EQ(o.error.rfind("FILE:4: experiment.machine: no machine \"nope\" (", 0), 0U) << o.error;
    EXPECT_NE(o.error.find("available: "), std::string::npos) << o.error;
    EXPECT_NE(o.error.find("toy4"), std::string::npos) << o.error;
}

TEST(Checks, a_machine_named_by_a_path_is_an_error) {
    EXPECT_EQ(run_text("path", tlb_flush2("../machines/toy4")).error,
              "FILE:4: experiment.machine: must be a machine name (the stem of a file in the machines directory)");
}

TEST(Checks, a_workload_that_needs_a_machine_without_one_names_the_experiment_table) {
    std::string text = tlb_flush2("toy2");
    text.erase(text.find("machine = \"toy2\"\n"), 17);
    EXPECT_EQ(run_text("none", text).error,
              "FILE:1: experiment.machine: the tlb_flush2 workload needs a machine: name one or embed a [machine] "
              "table");
}

TEST(Checks, a_kernel_section_without_a_version_is_an_error) {
    std::string text = tlb_flush2("toy2");
    text.erase(text.find("version = \"6.18\"\n"), 17);
    EXPECT_EQ(run_text("no_version", text).error, "FILE:5: kernel.version: required key is missing");
}

TEST(Checks, a_set_machine_value_is_applied_before_the_machine_loads_and_named_as_a_machine_key) {
    EXPECT_EQ(run_text("machine_set", tlb_flush2("toy2"), {"machine.topology.colour=1"}).error,
              "--set: machine.topology.colour: unknown key");
    EXPECT_EQ(run_text("machine_set2", tlb_flush2("toy2"), {"machine.topology.packages=0"})
                  .error.rfind("--set: machine.topology.packages: ", 0),
              0U);
}

TEST(Checks, a_sweep_of_more_than_2_to_the_64_points_is_an_error_not_zero_points) {
    std::string values = "[0";
    for (int i = 1; i <= 40; ++i) values += ", " + std::to_string(i);
    values += "]";
    std::string text = "[experiment]\nname = \"t\"\nworkload = \"tlb_flush2\"\nmachine = \"toy2\"\n[sweep]\n";
    for (const char* key : {"threads", "mode", "warmup", "measure", "kernel.version", "kernel.tlb_flush",
                            "kernel.madvise_lru_add_drain", "kernel.call_any_policy", "kernel.hz", "kernel.gic_barrier",
                            "kernel.arch_freq_prepare_all", "kernel.resctrl_dispatch"}) {
        text += std::string(key) + " = " + values + "\n";
    }
    // 41^4 is past the bound of 10^6 points (41^11 < 2^64 < 41^12: the twelfth key would overflow).
    EXPECT_EQ(run_text("overflow", text).error,
              "FILE:9: sweep.measure: the sweep has 2825761 points, more than the 1000000 one experiment may have");
}

}  // namespace
}  // namespace ipisim::experiment
