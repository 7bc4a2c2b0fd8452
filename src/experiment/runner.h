// Runs an experiment: prepare (load the machine once, read and check every sweep point against
// it, so every mistake is reported before the first point runs), then run every point on its
// own system, then write the results and the resolved configuration.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/machine_source.h"
#include "kernel/kernel_config.h"
#include "report/results.h"
#include "workload/workload.h"

namespace ipisim::experiment {

struct PreparedPoint {
    std::unique_ptr<workload::Workload> workload;  // parameters read and checked
    kernel::KernelConfig kernel;
    nlohmann::ordered_json row_params;
    toml::table params_written;  // the resolved [params] and [kernel] of the point
    toml::table kernel_written;
};

struct PreparedExperiment {
    Experiment experiment;
    std::optional<LoadedMachine> machine;  // none for workloads without a machine
    std::vector<PreparedPoint> points;
    toml::table base_params;  // the file's [params] and [kernel], resolved
    toml::table base_kernel;
};

// Every mistake, in any point, is a config::ConfigError naming its file (or the [sweep] value,
// or "--set") and line.
PreparedExperiment prepare_experiment(const Experiment& e, const std::string& machines_dir);

// Runs one point on a system of its own. Points share only read-only state (the machine spec,
// the registries), so different points may run on different threads at once.
report::ResultRow run_point(PreparedExperiment& prepared, size_t point);

// Runs every point on `jobs` threads (parallel.h); the rows are in sweep order and identical
// whatever the number. on_row (may be empty) is called after each point, one call at a time,
// in the order points finish.
report::ExperimentResults run_prepared(PreparedExperiment& prepared,
                                       const std::function<void(size_t point, const report::ResultRow&)>& on_row,
                                       unsigned jobs = 1);

struct RunOptions {
    std::string machines_dir;  // where experiment.machine is looked up
    std::function<void(size_t point, const report::ResultRow&)> on_row;
    unsigned jobs = 1;  // threads running points
};

// prepare_experiment + run_prepared.
report::ExperimentResults run_experiment(const Experiment& e, const RunOptions& options);

// The fully resolved configuration as TOML: every default written ([kernel] with its
// version-derived values), the sweep in its order, and the machine inline as [machine]. It
// alone reruns to the same fingerprints.
std::string resolved_toml(const PreparedExperiment& prepared);

// results.json (results_folder.h folder_json, complete), results.csv and config.toml
// (resolved_toml) in out_dir, without a lock: the session writes through a ResultsFolder.
void write_experiment_outputs(const PreparedExperiment& prepared, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir);

}  // namespace ipisim::experiment
