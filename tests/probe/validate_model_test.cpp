// The model side of `validate host`: the simulator's tlb_flush2 on a probe-written host.toml
// (marks and all), as an experiment through the experiment layer: deterministic, one shootdown
// IPI per loop at two threads, the [kernel] of the host's release, mistakes before any run.
#include "cli/validate_model.h"
#include "support/scratch_path.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "config/error.h"
#include "probe/host_file.h"
#include "report/results_files.h"
#include "sample_results.h"

namespace ipisim::cli {
namespace {

// One directory per test process (ctest runs tests in parallel, other checkouts may too),
// removed after the test.
std::filesystem::path test_dir() {
    return ::ipisim::test::scratch_path(fmt::format("ipisim-validate-model-test-{}", static_cast<long>(getpid())));
}

std::string host_file(const std::string& text = probe::host_machine_text(probe::testing::sample_results())) {
    const std::filesystem::path p = test_dir() / "host.toml";
    report::write_text_file(p, text);
    return p.string();
}

ModelSetup setup(std::vector<std::string> modes, std::vector<uint32_t> tasks, uint64_t seed = 1) {
    ModelSetup s;
    s.host_toml = host_file();
    s.kernel_release = "6.18.44-fc-v1045";
    s.modes = std::move(modes);
    s.tasks = std::move(tasks);
    s.quick = true;
    s.seed = seed;
    return s;
}

class ValidateModel : public ::testing::Test {
protected:
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(test_dir(), ec);
    }
};

TEST_F(ValidateModel, one_thread_flushes_locally_and_two_threads_send_one_ipi_per_loop) {
    experiment::PreparedExperiment prepared = prepare_model(setup({"threads", "processes"}, {1, 2}));
    const ModelOutcome out = run_model(prepared);
    ASSERT_EQ(out.cells.size(), 4U);
    // Modes outermost, task counts inner, as the table prints them.
    EXPECT_EQ(out.cells[0].mode, "threads");
    EXPECT_EQ(out.cells[0].tasks, 1U);
    EXPECT_EQ(out.cells[1].mode, "threads");
    EXPECT_EQ(out.cells[1].tasks, 2U);
    EXPECT_EQ(out.cells[2].mode, "processes");
    EXPECT_EQ(out.cells[3].tasks, 2U);
    EXPECT_GT(out.cells[0].loops_per_sec, 0);
    EXPECT_EQ(out.cells[0].ipis_per_loop, 0);
    EXPECT_GT(out.cells[1].ipis_per_loop, 0.95);
    EXPECT_LT(out.cells[1].ipis_per_loop, 1.05);
    EXPECT_EQ(out.cells[3].ipis_per_loop, 0);
    EXPECT_EQ(out.results.rows.size(), 4U);
}

TEST_F(ValidateModel, the_same_host_file_and_seed_give_the_same_fingerprint) {
    experiment::PreparedExperiment a = prepare_model(setup({"threads"}, {2}, 7));
    experiment::PreparedExperiment b = prepare_model(setup({"threads"}, {2}, 7));
    const ModelOutcome ra = run_model(a);
    const ModelOutcome rb = run_model(b);
    EXPECT_EQ(ra.cells.at(0).fingerprint, rb.cells.at(0).fingerprint);
    EXPECT_EQ(ra.cells.at(0).loops_per_sec, rb.cells.at(0).loops_per_sec);
}

TEST_F(ValidateModel, the_model_runs_the_hosts_kernel_release_with_that_versions_madvise_drain) {
    ModelSetup old = setup({"threads"}, {1});
    old.kernel_release = "6.13.7-arch1";
    const experiment::PreparedExperiment before = prepare_model(old);
    EXPECT_EQ(before.points.at(0).kernel.version, "6.13.7-arch1");
    EXPECT_TRUE(before.points.at(0).kernel.madvise_lru_add_drain);
    EXPECT_EQ(before.points.at(0).kernel.tlb_flush, "ipi");
    const experiment::PreparedExperiment after = prepare_model(setup({"threads"}, {1}));
    EXPECT_EQ(after.points.at(0).kernel.version, "6.18.44-fc-v1045");
    EXPECT_FALSE(after.points.at(0).kernel.madvise_lru_add_drain);
}

TEST_F(ValidateModel, a_release_with_an_odd_suffix_runs_as_its_major_minor) {
    EXPECT_EQ(model_kernel_version("6.14.0"), "6.14.0");
    EXPECT_EQ(model_kernel_version("6.1.0+"), "6.1");
    EXPECT_EQ(model_kernel_version("6.8_custom"), "6.8");
}

TEST_F(ValidateModel, a_release_the_model_does_not_know_runs_as_the_nearest_known_kernel_and_says_so) {
    EXPECT_EQ(model_kernel_note("6.18.44-fc-v1045"), "");
    EXPECT_EQ(model_kernel_version("7.2.1"), "6.18");
    EXPECT_EQ(model_kernel_version("6.19-rc3"), "6.18");
    EXPECT_EQ(model_kernel_version("4.19.0-26-amd64"), "5.12");
    const std::string note = model_kernel_note("7.2.1");
    EXPECT_EQ(note.rfind("the host runs 7.2.1, modelled as Linux 6.18: Linux 7.2 is newer than the newest kernel", 0),
              0U)
        << note;
    EXPECT_NE(model_kernel_note("4.19.0-26-amd64").find("older than the oldest kernel the model knows, 5.12"),
              std::string::npos);
    // The model experiment built for such a host is valid: it runs the nearest known kernel.
    ModelSetup newer = setup({"threads"}, {1});
    newer.kernel_release = "7.2.1";
    EXPECT_EQ(prepare_model(newer).points.at(0).kernel.version, "6.18");
}

TEST_F(ValidateModel, a_release_that_is_no_linux_version_is_an_error_at_kernel_version) {
    try {
        model_kernel_version("not a version");
        FAIL() << "an unreadable release was accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "kernel.version");
        EXPECT_NE(e.problem().find("\"not a version\""), std::string::npos);
    }
}

TEST_F(ValidateModel, a_seed_beyond_int64_is_an_error_at_seed_before_anything_runs) {
    EXPECT_THROW(prepare_model(setup({"threads"}, {1}, uint64_t{1} << 63)), config::ConfigError);
}

TEST_F(ValidateModel, a_bad_machine_value_is_reported_at_its_line_in_host_toml) {
    const std::string text = probe::host_machine_text(probe::testing::sample_results());
    const int line = probe::testing::line_starting(text, "    capacity = ");
    ASSERT_GT(line, 0);
    ModelSetup s = setup({"threads"}, {1});
    s.host_toml = host_file(probe::testing::replace_line(
        text, "    capacity = ", "    capacity = { mark = 'A', range = [ 0, 256 ], source = 'x', value = 0 }"));
    try {
        prepare_model(s);
        FAIL() << "a capacity of 0 was accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.file(), s.host_toml);
        EXPECT_EQ(e.line(), line);
        EXPECT_NE(e.key().find("capacity"), std::string::npos);
    }
}

}  // namespace
}  // namespace ipisim::cli
