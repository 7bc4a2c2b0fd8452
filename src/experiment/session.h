// The flow `ipisim run` and `ipisim reproduce` share: run a prepared experiment, write its
// results, resolved configuration and plots, and render what the user reads (the summary with
// published values and errors, then the seed's own table shape).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "experiment/runner.h"
#include "report/results.h"
#include "report/summary.h"

namespace ipisim::experiment {

struct RunReport {
    report::ExperimentResults results;
    std::string text;      // summary, then the seed's shape
    std::string warnings;  // why plots are missing, what gnuplot warned about ("" if nothing)
    uint64_t events = 0;
    double host_seconds = 0;  // wall-clock time of the runs (not of the model)
};

struct SessionOptions {
    PointHooks hooks;
    report::SummaryOptions summary;  // --metrics, --latency
    bool plots = true;               // plot_*.svg/.png/.gp into the results folder
};

// A --metrics name that no row reports is a config::ConfigError naming the metrics there are,
// raised after the points ran but before anything is written.
RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const SessionOptions& options = {});

// The text the user reads, from results alone (results.json has all of it).
std::string render_report(const report::ExperimentResults& results, const report::SummaryOptions& summary);

}  // namespace ipisim::experiment
