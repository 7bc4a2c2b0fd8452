// ipisim compare (report/compare.h): points matched by their varying parameters, both values,
// absolute and relative differences, points in only one run, and bad input.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/compare_command.h"
#include "config/error.h"
#include "report/compare.h"
#include "report/results_files.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

ExperimentResults run(const std::vector<int>& threads, const char* measure, double scale) {
    ExperimentResults r;
    r.experiment = "seed000_rar";
    r.swept = {"threads"};
    for (int t : threads) {
        ResultRow row;
        row.params["threads"] = t;
        row.params["measure"] = measure;
        row.metrics["loops_per_sec"] = 100000.0 * t * scale;
        row.metrics["flush_share"] = 0.25 * scale;
        row.metrics["mode"] = scale == 1 ? "a" : "b";
        row.fingerprint = 1000 + static_cast<uint64_t>(t) + (scale == 1 ? 0 : static_cast<uint64_t>(t == 1 ? 0 : 7));
        r.rows.push_back(row);
    }
    return r;
}

TEST(Compare, points_match_on_swept_parameters_with_both_values_and_their_differences) {
    const std::string out = compare_results(run({1, 5, 20}, "1 ms", 1), run({1, 5, 30}, "2 ms", 1.1));
    const std::string expected =
        "differs: measure: 1 ms | 2 ms\n"
        "\n"
        "threads  metric         A     B      B-A      (B-A)/A\n"
        "-------  -------------  ----  -----  -------  -------\n"
        "      1  loops_per_sec  100k   110k     +10k   +10.0%\n"
        "      1  flush_share     25%  27.5%  +2.5pp    +10.0%\n"
        "      1  mode           a     b      changed\n"
        "      5  loops_per_sec  500k   550k     +50k   +10.0%\n"
        "      5  flush_share     25%  27.5%  +2.5pp    +10.0%\n"
        "      5  mode           a     b      changed\n"
        "only in A: threads=20\n"
        "only in B: threads=30\n"
        "2 points in both, 1 with equal fingerprints (identical runs)\n";
    EXPECT_NE(out.find(expected), std::string::npos) << out;
    EXPECT_EQ(out.rfind("A: seed000_rar  fingerprint ", 0), 0U) << out;
}

TEST(Compare, chosen_metrics_only_and_an_unknown_one_is_an_error) {
    CompareOptions o;
    o.metrics = {"loops_per_sec"};
    const std::string out = compare_results(run({1}, "1 ms", 1), run({1}, "1 ms", 1), o);
    EXPECT_NE(out.find("      1  loops_per_sec  100k  100k    0    +0.0%\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("flush_share"), std::string::npos);
    EXPECT_EQ(out.find("differs:"), std::string::npos);
    o.metrics = {"loops"};
    EXPECT_THROW(compare_results(run({1}, "1 ms", 1), run({1}, "1 ms", 1), o), config::ConfigError);
}

std::filesystem::path scratch(const std::string& name) {
    auto p = ::ipisim::test::scratch_path(("ipisim_compare_" + name));
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

TEST(Compare, two_results_roots_compare_their_experiments_by_name) {
    const auto a = scratch("a"), b = scratch("b");
    write_text_file(a / "seed000_rar" / "results.json", results_json(run({1}, "1 ms", 1)).dump());
    write_text_file(b / "seed000_rar" / "results.json", results_json(run({1}, "1 ms", 2)).dump());
    write_text_file(a / "seed002" / "results.json", results_json(run({1}, "1 ms", 1)).dump());
    const std::string out = compare_folders(a, b);
    EXPECT_NE(out.find("==== seed000_rar\n"), std::string::npos) << out;
    EXPECT_NE(out.find("+100.0%"), std::string::npos) << out;
    EXPECT_NE(out.find("==== seed002: only in A\n"), std::string::npos) << out;
    std::filesystem::remove_all(a);
    std::filesystem::remove_all(b);
}

TEST(Compare, bad_input_is_an_error_naming_the_folder) {
    const auto empty = scratch("empty"), one = scratch("one");
    write_text_file(one / "results.json", results_json(run({1}, "1 ms", 1)).dump());
    auto problem = [](const std::filesystem::path& x, const std::filesystem::path& y) -> std::string {
        try {
            cli::compare_command({x.string(), y.string(), ""});
        } catch (const config::ConfigError& e) {
            return e.what();
        }
        return "accepted";
    };
    EXPECT_EQ(problem(one, empty / "nope"), (empty / "nope").string() + ": (folder): no such folder");
    EXPECT_EQ(problem(one, empty),
              empty.string() + ": (folder): holds no results.json and no experiment folder (NAME/results.json)");
    write_text_file(empty / "x" / "results.json", "{not json");
    EXPECT_NE(problem(empty, empty).find("results.json: (file): not valid JSON"), std::string::npos);
    std::filesystem::remove_all(empty);
    std::filesystem::remove_all(one);
}

}  // namespace
