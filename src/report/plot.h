// Plots of a results folder with gnuplot: for each headline metric, the metric against a swept
// parameter, one line (or bar group) per variant of the other swept parameters, the published
// values as open points beside the predicted lines, and intervals as bands (or error bars)
// where rows carry metrics_interval. SVG and PNG, with the gnuplot script beside them so a
// plot can be tuned by hand: DIR/plot_<metric>.{svg,png,gp}.
//
// What is plotted (plan_plots), from results.json alone:
//   metrics  the seed table's value (a pivot [report]); else the metrics its line template
//            names; else the metrics with published values; else every numeric metric (at most 8)
//   x        the pivot's rows; else the first swept parameter with numbers, else the first one;
//            numeric x on a log2 axis when it spans >= 32x in mostly doubling steps, strings as
//            categories (grouped bars)
//   variants the other swept parameters ("flush=ipi"; "k=v k2=v2" when there are several)
// Shares (metrics named *_share) are drawn in percent.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/results.h"

namespace ipisim::report {

struct PlotSpec {
    std::string metric;
    std::string x;                         // a swept parameter ("" when nothing is swept)
    std::vector<std::string> series_keys;  // the other swept parameters
    bool numeric_x = false;
    bool log_x = false;
    std::string title;
    std::string stem;  // file name without extension: "plot_loops_per_sec"
};

std::vector<PlotSpec> plan_plots(const ExperimentResults& results);

// A gnuplot double-quoted string: \" and \\ escaped, a newline written as \n.
std::string gp_string(const std::string& s);

// The gnuplot script drawing `spec` into svg and png (paths as given).
std::string gnuplot_script(const ExperimentResults& results, const PlotSpec& spec, const std::string& svg,
                           const std::string& png);

// Whether a gnuplot executable is on PATH.
bool gnuplot_available();

// Runs a gnuplot script in its folder, where its relative output names point; returns what
// gnuplot said (warnings) when it succeeded, a std::runtime_error with its messages otherwise.
std::string run_gnuplot(const std::filesystem::path& script);

struct PlotOutput {
    std::vector<std::filesystem::path> files;  // every .svg and .png written
    std::string note;                          // why nothing was drawn (no gnuplot), else empty
    std::string warnings;                      // what gnuplot said while drawing, else empty
};

// Draws every planned plot of dir/results.json into dir. A bad results.json is a
// config::ConfigError; a gnuplot failure a std::runtime_error with its messages.
PlotOutput plot_results(const std::filesystem::path& dir);

// After a run has written its results: plot_results, with whatever keeps the plots from being
// drawn (no gnuplot, a gnuplot error) or gnuplot's warnings said on stderr, never failing the
// run whose results are written already. Returns whether every plot was drawn cleanly.
bool print_plot_results(const std::filesystem::path& dir);

}  // namespace ipisim::report
