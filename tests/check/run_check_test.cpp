// The monitors watch every experiment point (`ipisim run`): each results row carries a `check`
// member, and a deadlocking flush names its wait-for cycle instead of reporting 0 loops/s.
#include <gtest/gtest.h>

#include <filesystem>

#include "check/mutants.h"
#include "cli/run_command.h"
#include "experiment/runner.h"
#include "report/results_files.h"
#include "support/paths.h"
#include "support/scratch_path.h"

using namespace ipisim;

namespace {

report::ExperimentResults run_tlb_flush2(const std::string& protocol, int seed = 1) {
    check::register_mutants();
    const auto dir = ::ipisim::test::scratch_path(("ipisim_run_check_" + protocol));
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "e.toml").string();
    report::write_text_file(file,
                            "[experiment]\nname = \"run_check\"\nworkload = \"tlb_flush2\"\nmachine = "
                            "\"toy4\"\nseed = " +
                                std::to_string(seed) + "\n[kernel]\nversion = \"6.18\"\ntlb_flush = \"" + protocol +
                                "\"\n[params]\nthreads = 4\nmode = \"threads\"\nwarmup = \"200 us\"\n"
                                "measure = \"500 us\"\n");
    experiment::RunOptions options;
    options.machines_dir = ipisim::test::source_path("machines");
    return experiment::run_experiment(experiment::load_experiment(file, {}), options);
}

TEST(RunCheck, every_row_of_a_correct_run_reports_no_violation) {
    const report::ExperimentResults r = run_tlb_flush2("ipi");
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0].check, (nlohmann::ordered_json{{"violations", 0}}));
    EXPECT_EQ(report::results_json(r)["rows"][0]["check"]["violations"], 0);
}

TEST(RunCheck, a_deadlocked_run_names_its_wait_for_cycle_instead_of_zero_loops) {
    // Seed 9: the even and odd flushers meet inside their critical sections in the window
    // (seeds 1-8 and 10 happen not to).
    const report::ExperimentResults r = run_tlb_flush2("abba-deadlock", 9);
    ASSERT_EQ(r.rows.size(), 1u);
    const nlohmann::ordered_json& c = r.rows[0].check;
    ASSERT_TRUE(c.contains("first")) << c.dump();
    EXPECT_EQ(c["first"]["kind"], "deadlock");
    const std::string d = c["first"]["diagnosis"];
    EXPECT_NE(d.find("wait-for cycle"), std::string::npos) << d;
    EXPECT_NE(d.find("abba_lock_a"), std::string::npos) << d;
    EXPECT_NE(d.find("abba_lock_b"), std::string::npos) << d;
}

// The monitors are per point, on the thread that runs it: with --jobs, the violation of one
// point is in its row, the other's row is clean, and `ipisim run` exits 1.
TEST(RunCheck, run_exits_1_when_a_point_run_on_another_thread_violates_an_invariant) {
    check::register_mutants();
    const auto dir = ::ipisim::test::scratch_path("ipisim_run_check_jobs");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "e.toml").string();
    // Seed 9, as above.
    report::write_text_file(file,
                            "[experiment]\nname = \"run_check_jobs\"\nworkload = \"tlb_flush2\"\nmachine = "
                            "\"toy4\"\nseed = 9\n[kernel]\nversion = \"6.18\"\n[params]\nthreads = 4\n"
                            "mode = \"threads\"\nwarmup = \"200 us\"\nmeasure = \"500 us\"\n"
                            "[sweep]\nkernel.tlb_flush = [\"ipi\", \"abba-deadlock\"]\n");
    cli::RunArgs args;
    args.experiment = file;
    args.out_dir = (dir / "out").string();
    args.jobs = 2;
    args.output.console.quiet = true;
    args.output.format = "json";
    cli::DataDirs dirs;
    dirs.machines = ipisim::test::source_path("machines");
    testing::internal::CaptureStdout();
    const int rc = cli::run_command(args, dirs);
    (void)testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 1);
    const report::ExperimentResults r = report::read_results_json(dir / "out" / "results.json");
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(r.rows[0].check, (nlohmann::ordered_json{{"violations", 0}}));
    EXPECT_EQ(r.rows[1].check["first"]["kind"], "deadlock");
}

}  // namespace
