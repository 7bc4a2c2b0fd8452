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
#include "report/point_recorder.h"
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

// What `--uncertainty` found at one point (uncertainty.h): {"metric": [p5, p95]} and
// {"metric": median} over the sampled machines.
struct PointSpread {
    nlohmann::ordered_json interval = nlohmann::ordered_json::object();
    nlohmann::ordered_json median = nlohmann::ordered_json::object();
};

struct PreparedExperiment {
    Experiment experiment;
    std::optional<LoadedMachine> machine;  // none for workloads without a machine
    std::vector<PreparedPoint> points;
    toml::table base_params;  // the file's [params] and [kernel], resolved
    toml::table base_kernel;
    // Set by run_uncertainty (uncertainty.h) before the nominal run, which reports them: one per
    // point (empty: no uncertainty run), and what was sampled (results.json "uncertainty").
    std::vector<PointSpread> spreads;
    nlohmann::ordered_json uncertainty = nlohmann::ordered_json::object();
};

// Every mistake, in any point, is a config::ConfigError naming its file (or the [sweep] value,
// or "--set") and line.
PreparedExperiment prepare_experiment(const Experiment& e, const std::string& machines_dir);
// The same on a machine already loaded (a sampled variant of the experiment's own); `machine`
// must be set exactly when the workload needs one.
PreparedExperiment prepare_experiment(const Experiment& e, std::optional<LoadedMachine> machine);

// What a run reports while it runs, and what it records besides the metrics.
struct PointHooks {
    std::function<void(size_t point)> on_start;                          // before a point runs; may be empty
    std::function<void(size_t point, const report::ResultRow&)> on_row;  // after it; may be empty
    // A Chrome / Perfetto trace of one point (report/point_recorder.h); nullptr: none. Its
    // point must be one of the experiment's (check_trace_point).
    const report::TraceOptions* trace = nullptr;
};

// What results.json says about the run besides its rows: the experiment's description,
// machine, kernel, provenance and table shape, and its published source and note (the note
// over every point of the sweep, so the shards of a sweep say what the whole run says).
report::ExperimentResults describe_results(const PreparedExperiment& prepared);

// Runs one point on a system of its own, watched by the checker's monitors and a
// report::PointRecorder (its latency histograms; the trace when `trace` selects this point).
// Points share only read-only state (the machine spec, the registries), and the observers are
// the calling thread's, so different points may run on different threads at once. The row
// carries its point index, matching published values and the reasons of undefined metrics.
report::ResultRow run_point(PreparedExperiment& prepared, size_t point, const report::TraceOptions* trace = nullptr);

// Runs every point on `jobs` threads (parallel.h); the rows are in sweep order and identical
// whatever the number. The hooks are called one call at a time, on_start before a point runs
// and on_row after it, in the order points start and finish. Every row carries its latency
// histograms (observers only read: fingerprints are those of an unobserved run) and its
// matching published values; the results carry describe_results.
report::ExperimentResults run_prepared(PreparedExperiment& prepared, const PointHooks& hooks = {}, unsigned jobs = 1);

// A --trace-point beyond the experiment's points is a config::ConfigError at --trace-point.
void check_trace_point(const PreparedExperiment& prepared, size_t point);

struct RunOptions {
    std::string machines_dir;  // where experiment.machine is looked up
    std::function<void(size_t point, const report::ResultRow&)> on_row;
    const report::TraceOptions* trace = nullptr;
    unsigned jobs = 1;  // threads running points
};

// prepare_experiment + run_prepared.
report::ExperimentResults run_experiment(const Experiment& e, const RunOptions& options);

// The fully resolved configuration as TOML: every default written ([kernel] with its
// version-derived values), the sweep in its order, and the machine inline as [machine]. It
// alone reruns to the same fingerprints.
std::string resolved_toml(const PreparedExperiment& prepared);

// A hash of the machine as config.toml writes it ([machine], overrides applied), so results
// name the exact machine they ran on; empty without a machine.
std::string machine_hash(const PreparedExperiment& prepared);

// results.json (results_folder.h folder_json, complete), results.csv and config.toml
// (resolved_toml) in out_dir, without a lock: the session writes through a ResultsFolder.
// Plots are drawn separately (report::plot_results), so a run never fails over them.
void write_experiment_outputs(const PreparedExperiment& prepared, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir);

}  // namespace ipisim::experiment
