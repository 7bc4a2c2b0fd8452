// cli/run_output.h: what `run` and `reproduce` say and return when the checker's monitors found a
// violation at some point, and reproduce's default trace window.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli/console.h"
#include "cli/run_output.h"
#include "experiment/runner.h"
#include "report/results.h"

using namespace ipisim;

namespace {

std::string contents(std::FILE* f) {
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;) s.push_back(static_cast<char>(c));
    std::fclose(f);
    return s;
}

TEST(ReportViolations, a_point_with_a_violation_is_one_warning_line_naming_the_experiment_and_fails_the_command) {
    report::ExperimentResults results;
    results.rows.resize(3);
    for (size_t i = 0; i < 3; ++i) {
        results.rows[i].point = i;
        results.rows[i].check = {{"violations", 0}};
    }
    results.rows[1].check = {
        {"violations", 2},
        {"first", {{"kind", "stale_translation"}, {"cpu", 3}, {"diagnosis", "cpu3 used a stale entry"}}}};
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    bool any = false;
    {
        cli::Console con(cli::ConsoleOptions{true, cli::ProgressMode::never}, out, err);
        any = cli::report_violations(con, results, "seed000_rar");
    }
    EXPECT_TRUE(any);
    EXPECT_EQ(contents(out), "");
    EXPECT_EQ(contents(err),
              "ipisim: check: seed000_rar: point 2: 2 violation(s); first: stale_translation on cpu3: cpu3 used a "
              "stale entry\n");
}

TEST(ReportViolations, rows_without_a_violation_say_nothing_and_pass) {
    report::ExperimentResults results;
    results.rows.resize(2);
    results.rows[0].check = {{"violations", 0}};
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    bool any = true;
    {
        cli::Console con(cli::ConsoleOptions{false, cli::ProgressMode::never}, out, err);
        any = cli::report_violations(con, results, "");
    }
    EXPECT_FALSE(any);
    EXPECT_EQ(contents(err), "");
    fclose(out);
}

TEST(DefaultTraceWindow, is_the_200_us_after_the_points_warmup) {
    experiment::PreparedPoint point;
    point.params_written.insert_or_assign("warmup", "2 ms");
    const report::TraceWindow w = cli::default_trace_window(point);
    EXPECT_EQ(w.from, sim::Picos(2'000'000'000));
    EXPECT_EQ(w.to, sim::Picos(2'200'000'000));
}

TEST(DefaultTraceWindow, starts_at_zero_for_a_workload_without_a_warmup) {
    experiment::PreparedPoint point;
    point.params_written.insert_or_assign("opens", 16);
    const report::TraceWindow w = cli::default_trace_window(point);
    EXPECT_EQ(w.from, sim::Picos::zero());
    EXPECT_EQ(w.to, sim::Picos(200'000'000));
}

}  // namespace
