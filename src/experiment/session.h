// The flow `ipisim run` and `ipisim reproduce` share: run prepared experiments, write their
// results, resolved configuration and plots, and render what the user reads (the summary with
// published values and errors, then the seed's own table shape).
//
// Every point of every experiment of a session is one job on one pool of threads (parallel.h),
// handed out in experiment order, then point order; each runs on its own system with its own
// monitors and recorder (runner.h run_point). An experiment is finished (its files and plots
// written, on_done called) once its last point has run and every experiment before it is
// finished, so what the user reads comes in experiment order and is the same for any number of
// threads; only progress (the hooks) may come out of order.
//
// Each experiment's folder (results_folder.h) is opened and locked before the first point of
// the session runs, and every finished point is recorded in it at once; with --resume the
// points it already holds are not run again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiment/results_folder.h"
#include "experiment/runner.h"
#include "experiment/shard.h"
#include "report/point_recorder.h"
#include "report/results.h"
#include "report/summary.h"

namespace ipisim::experiment {

struct RunReport {
    report::ExperimentResults results;
    std::string json;      // results.json as written (the commit record included)
    std::string text;      // summary, then the seed's shape
    std::string warnings;  // why plots are missing, what gnuplot warned about ("" if nothing)
    uint64_t events = 0;
    double host_seconds = 0;  // wall-clock time from its first point's start to its end (not of the model)
};

// Progress: called on any thread, one call at a time (with each other and with on_done), in
// the order things happen.
struct SessionHooks {
    // Once per experiment, before any point runs: the points its folder kept (--resume).
    std::function<void(size_t experiment, size_t kept, const std::filesystem::path& dir)> resumed;
    // Once, before any point runs: how many points the session will run (kept ones excepted).
    std::function<void(size_t points)> scheduled;
    std::function<void(size_t experiment, size_t point)> started;
    std::function<void(size_t experiment, size_t point, const report::ResultRow&)> finished;
};

// One experiment of a session, where its results go and what it records and shows.
struct SessionRun {
    PreparedExperiment* prepared = nullptr;
    std::filesystem::path out_dir;
    FolderOptions folder;
    std::optional<Shard> shard;                   // run only this share of the sweep
    const report::TraceOptions* trace = nullptr;  // the trace of one point (check_trace_point); nullptr: none
    report::SummaryOptions summary;               // --metrics, --latency
};

struct SessionOptions {
    unsigned jobs = 1;  // threads running points
    SessionHooks hooks;
    bool plots = true;  // plot_*.svg/.png/.gp into each results folder
};

// Runs every experiment; on_done(index, report) is called once per experiment, in order, one
// call at a time. A point that throws stops the session (finished experiments keep their
// files, the others the points they finished); its exception is rethrown. A --metrics name
// that no row reports is a config::ConfigError naming the metrics there are, raised once the
// experiment's points ran, before its results are marked complete.
void run_session(const std::vector<SessionRun>& runs, const SessionOptions& options,
                 const std::function<void(size_t experiment, RunReport& report)>& on_done);

// The text the user reads, from results alone (results.json has all of it).
std::string render_report(const report::ExperimentResults& results, const report::SummaryOptions& summary);

// Draws the plots of a results folder (report::plot_results). Plots never fail a run whose
// results are written: what kept them from being drawn is returned as warning lines ("" if
// nothing).
std::string draw_plots(const std::filesystem::path& out_dir);

}  // namespace ipisim::experiment
