// Plots (report/plot.h): what is plotted against what, the gnuplot script's data, and the SVG
// and PNG files gnuplot draws from a results folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/plot_command.h"
#include "config/error.h"
#include "report/plot.h"
#include "report/results_files.h"
#include "support/read_file.h"
#include "support/scratch_path.h"

using namespace ipisim;
using namespace ipisim::report;

namespace {

ResultRow row(int threads, const char* flush, double loops) {
    ResultRow r;
    r.params["threads"] = threads;
    r.params["flush"] = flush;
    r.metrics["loops_per_sec"] = loops;
    r.metrics["flush_share"] = 0.25;
    return r;
}

ExperimentResults seed000_like() {
    ExperimentResults r;
    r.experiment = "seed000_rar";
    r.machine = "sapphire_rapids_30c";
    r.swept = {"threads", "flush"};
    r.report = {{"kind", "pivot"},          {"title", "loops/sec"}, {"rows", "threads"}, {"columns", "flush"},
                {"value", "loops_per_sec"}, {"scale", 1000.0},      {"suffix", "k"}};
    r.rows = {row(1, "ipi", 174000), row(1, "rar", 170000), row(60, "ipi", 1340000), row(60, "rar", 300000)};
    r.rows[2].published["loops_per_sec"] = 1040000;
    r.rows[3].metrics_interval["loops_per_sec"] = {250000, 350000};
    return r;
}

TEST(Plot, a_pivot_plots_its_value_against_its_rows_one_line_per_column) {
    const std::vector<PlotSpec> plans = plan_plots(seed000_like());
    ASSERT_EQ(plans.size(), 1U);
    EXPECT_EQ(plans[0].metric, "loops_per_sec");
    EXPECT_EQ(plans[0].x, "threads");
    EXPECT_EQ(plans[0].series_keys, std::vector<std::string>{"flush"});
    EXPECT_TRUE(plans[0].numeric_x);
    EXPECT_FALSE(plans[0].log_x);
    EXPECT_EQ(plans[0].title, "loops/sec");
    EXPECT_EQ(plans[0].stem, "plot_loops_per_sec");
}

TEST(Plot, the_script_holds_predicted_and_published_values_in_the_tables_scale_and_draws_the_interval_as_a_band) {
    const ExperimentResults r = seed000_like();
    const std::string s = gnuplot_script(r, plan_plots(r)[0], "a.svg", "a.png");
    EXPECT_NE(s.find("$pred0 << EOD\n1 174\n60 1340\nEOD\n$pub0 << EOD\n60 1040\nEOD\n"), std::string::npos) << s;
    EXPECT_NE(s.find("$pred1 << EOD\n1 170\n60 300 250 350\nEOD\n$pub1 << EOD\nEOD\n"), std::string::npos) << s;
    EXPECT_NE(s.find("set ylabel \"loops_per_sec (k)\""), std::string::npos) << s;
    EXPECT_NE(s.find("$pred1 using 1:3:4 with filledcurves"), std::string::npos) << s;
    EXPECT_EQ(s.find("$pred0 using 1:3:4"), std::string::npos) << s;  // no interval, no band
    EXPECT_NE(s.find("title \"flush=ipi (published)\""), std::string::npos) << s;
    EXPECT_EQ(s.find("title \"flush=rar (published)\""), std::string::npos) << s;
    EXPECT_NE(s.find("set title \"loops/sec\\nseed000_rar on sapphire_rapids_30c\""), std::string::npos) << s;
    EXPECT_NE(s.find("set output \"a.svg\""), std::string::npos);
    EXPECT_NE(s.find("set output \"a.png\""), std::string::npos);
}

TEST(Plot, without_a_pivot_the_line_templates_metrics_are_plotted_and_doubling_sweeps_get_a_log_axis) {
    ExperimentResults r;
    r.experiment = "e";
    r.swept = {"cpus"};
    r.report = {{"kind", "lines"}, {"line", "{cpus} cpus: {lat_ns} ns ({flush_share})"}};
    for (int c : {2, 16, 64, 256}) {
        ResultRow row;
        row.params["cpus"] = c;
        row.metrics["lat_ns"] = 100.0 * c;
        row.metrics["other"] = 1;
        row.metrics["flush_share"] = 0.5;
        r.rows.push_back(row);
    }
    const std::vector<PlotSpec> plans = plan_plots(r);
    ASSERT_EQ(plans.size(), 2U);
    EXPECT_EQ(plans[0].metric, "lat_ns");
    EXPECT_EQ(plans[1].metric, "flush_share");
    EXPECT_TRUE(plans[0].log_x);
    const std::string s = gnuplot_script(r, plans[1], "b.svg", "b.png");
    EXPECT_NE(s.find("2 50\n16 50\n"), std::string::npos) << s;  // shares in percent
    EXPECT_NE(s.find("set ylabel \"flush_share (%)\""), std::string::npos) << s;
    EXPECT_NE(s.find("unset key"), std::string::npos) << s;      // one line, nothing published
    EXPECT_EQ(s.find("set key width"), std::string::npos) << s;  // would turn the key back on
}

// Regression: the key's give-back for gnuplot's overestimate of long key texts applied to the
// PNG as well, where the estimate is right, and cut "flush=numa-multicast" at the right edge.
TEST(Plot, a_long_key_gets_width_given_back_in_the_svg_only) {
    ExperimentResults r = seed000_like();
    r.rows[1].params["flush"] = "numa-multicast-with-a-long-name";
    r.rows[3].params["flush"] = "numa-multicast-with-a-long-name";
    const std::string s = gnuplot_script(r, plan_plots(r)[0], "a.svg", "a.png");
    // "flush=numa-multicast-with-a-long-name (published)": 37 + 12 characters, a fifth back.
    EXPECT_NE(s.find("set key width -9\nset terminal svg"), std::string::npos) << s;
    EXPECT_NE(s.find("set key width 0\nset terminal pngcairo"), std::string::npos) << s;
}

TEST(Plot, a_metric_that_is_zero_at_every_point_gets_no_plot) {
    ExperimentResults r;
    r.experiment = "e";
    r.swept = {"cpus"};
    r.report = {{"kind", "lines"}, {"line", "{cpus} cpus: {lat_ns} ns, {irqs} irqs"}};
    for (int c : {2, 4}) {
        ResultRow row;
        row.params["cpus"] = c;
        row.metrics["lat_ns"] = 100.0 * c;
        row.metrics["irqs"] = 0;
        r.rows.push_back(row);
    }
    std::vector<PlotSpec> plans = plan_plots(r);
    ASSERT_EQ(plans.size(), 1U);
    EXPECT_EQ(plans[0].metric, "lat_ns");
    r.rows[1].metrics["irqs"] = 3;  // one point that is not zero: plotted
    plans = plan_plots(r);
    ASSERT_EQ(plans.size(), 2U);
    EXPECT_EQ(plans[1].metric, "irqs");
}

TEST(Plot, string_parameters_are_categories_drawn_as_grouped_bars) {
    ExperimentResults r;
    r.experiment = "e";
    r.swept = {"domain", "dispatch"};
    for (const char* d : {"local", "remote"}) {
        for (const char* p : {"a", "b"}) {
            ResultRow row;
            row.params["domain"] = d;
            row.params["dispatch"] = p;
            row.metrics["cycles"] = 2000.0;
            r.rows.push_back(row);
        }
    }
    const PlotSpec spec = plan_plots(r).at(0);
    EXPECT_EQ(spec.x, "domain");
    EXPECT_FALSE(spec.numeric_x);
    const std::string s = gnuplot_script(r, spec, "c.svg", "c.png");
    // Two bars per category, 0.4 wide, centred on the category.
    EXPECT_NE(s.find("$pred0 << EOD\n-0.2 2\n0.8 2\nEOD\n"), std::string::npos) << s;
    EXPECT_NE(s.find("$pred1 << EOD\n0.2 2\n1.2 2\nEOD\n"), std::string::npos) << s;
    EXPECT_NE(s.find("set xtics (\"local\" 0, \"remote\" 1)"), std::string::npos) << s;
    EXPECT_NE(s.find("set ylabel \"cycles (thousands)\""), std::string::npos) << s;
    EXPECT_NE(s.find("with boxes"), std::string::npos) << s;
}

TEST(Plot, each_bar_is_labelled_with_its_value_and_its_difference_from_the_series_first) {
    // seed 002's shape: two barriers 2% apart, which bars from zero alone would not show.
    ExperimentResults r;
    r.experiment = "seed002_gic_barrier";
    r.swept = {"kernel.gic_barrier"};
    for (const auto& [barrier, ns] : {std::pair{"wmb", 273859977.0}, std::pair{"dsb_ishst", 268159977.0}}) {
        ResultRow row;
        row.params["kernel.gic_barrier"] = barrier;
        row.metrics["total_ns"] = ns;
        r.rows.push_back(row);
    }
    const PlotSpec spec = plan_plots(r).at(0);
    ASSERT_FALSE(spec.numeric_x);
    const std::string s = gnuplot_script(r, spec, "b.svg", "b.png");
    EXPECT_NE(s.find("$label0 << EOD\n0 273.859977 \"273.9\"\n1 268.159977 \"268.2 (-2.1%)\"\nEOD\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("$label0 using 1:2:3 with labels"), std::string::npos) << s;
}

std::filesystem::path scratch(const std::string& name) {
    auto p = ::ipisim::test::scratch_path(("ipisim_plot_" + name));
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

TEST(Plot, gnuplot_draws_svg_and_png_from_results_json_alone) {
    if (!gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)";
    const auto dir = scratch("draw");
    write_text_file(dir / "results.json", results_json(seed000_like()).dump(2));
    const PlotOutput out = plot_results(dir);
    EXPECT_EQ(out.note, "");
    ASSERT_EQ(out.files.size(), 2U);
    const std::string svg = test::read_file(dir / "plot_loops_per_sec.svg");
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("flush=rar"), std::string::npos);
    EXPECT_NE(svg.find("threads"), std::string::npos);
    const std::string png = test::read_file(dir / "plot_loops_per_sec.png");
    ASSERT_GT(png.size(), 1000U);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    EXPECT_TRUE(std::filesystem::exists(dir / "plot_loops_per_sec.gp"));
    // The same results draw the same SVG.
    plot_results(dir);
    EXPECT_EQ(test::read_file(dir / "plot_loops_per_sec.svg"), svg);
    std::filesystem::remove_all(dir);
}

// Regression: a sweep of one point made gnuplot warn "empty x range", which failed the run
// after its results were written.
TEST(Plot, a_sweep_of_one_point_draws_without_gnuplot_warnings) {
    if (!gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)";
    ExperimentResults r = seed000_like();
    r.rows.resize(1);
    const auto dir = scratch("one_point");
    write_text_file(dir / "results.json", results_json(r).dump(2));
    const PlotOutput out = plot_results(dir);
    EXPECT_EQ(out.warnings, "");
    EXPECT_EQ(out.files.size(), 2U);
    EXPECT_TRUE(print_plot_results(dir));
    std::filesystem::remove_all(dir);
}

TEST(Plot, a_gnuplot_failure_after_a_run_is_a_warning_not_a_failed_run) {
    const auto dir = scratch("broken");
    write_text_file(dir / "results.json", "{}");
    EXPECT_FALSE(print_plot_results(dir));  // says why on stderr, does not throw
    std::filesystem::remove_all(dir);
}

TEST(Plot, a_folder_without_results_json_is_an_error_naming_the_file) {
    const auto dir = scratch("empty");
    try {
        cli::plot_command({dir.string()});
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.file(), (dir / "results.json").string());
    }
    write_text_file(dir / "results.json", R"({"experiment": "x", "rows": [{"params": {}, "metrics": 3}]})");
    try {
        (void)read_results_json(dir / "results.json");
        FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "rows[0].metrics");
        EXPECT_EQ(e.problem(), "expected object, got number");
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
