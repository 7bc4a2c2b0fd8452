// Runs every sweep point of a loaded experiment through its workload, and writes the results.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "cli/experiment.h"
#include "report/point_recorder.h"
#include "report/results.h"

namespace ipisim::cli {

struct RunOptions {
    std::string machines_dir;  // where experiment.machine is looked up
    // Called after each point (progress on stderr); may be empty.
    std::function<void(size_t point, const report::ResultRow&)> on_row;
    // A Chrome / Perfetto trace of one point (report/point_recorder.h); nullptr: none.
    const report::TraceOptions* trace = nullptr;
};

// Workload parameter mistakes surface as config::ConfigError naming the experiment file (or the
// [sweep] value, or "--set") and line.
report::ExperimentResults run_experiment(const Experiment& experiment, const RunOptions& options);

// results.json, results.csv and config.toml (the resolved configuration) in out_dir.
void write_experiment_outputs(const Experiment& experiment, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir);

}  // namespace ipisim::cli
