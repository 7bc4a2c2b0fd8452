// The flow `ipisim run` and `ipisim reproduce` share: run prepared experiments, write their
// results and resolved configuration, and render what the user reads (the summary with
// published values and errors, then the seed's own table shape).
//
// Every point of every experiment of a session is one job on one pool of threads (parallel.h),
// handed out in experiment order, then point order. An experiment is finished (its files
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
#include "report/results.h"

namespace ipisim::experiment {

struct RunReport {
    report::ExperimentResults results;
    std::string text;  // summary, then the seed's shape
    uint64_t events = 0;
    double host_seconds = 0;  // wall-clock time from its first point's start to its end (not of the model)
};

// Progress: called on any thread, one call at a time, in the order things happen.
struct PointHooks {
    // Once per experiment, before any point runs: the points its folder kept (--resume).
    std::function<void(size_t experiment, size_t kept, const std::filesystem::path& dir)> resumed;
    std::function<void(size_t experiment, size_t point)> started;
    std::function<void(size_t experiment, size_t point, const report::ResultRow&)> finished;
};

// One experiment of a session and where its results go.
struct SessionRun {
    PreparedExperiment* prepared = nullptr;
    std::filesystem::path out_dir;
    FolderOptions folder;
    std::optional<Shard> shard;  // run only this share of the sweep
};

struct SessionOptions {
    unsigned jobs = 1;  // threads running points
    PointHooks hooks;
};

// Runs every experiment; on_done(index, report) is called once per experiment, in order, one
// call at a time. A point that throws stops the session (finished experiments keep their
// files, the others the points they finished); its exception is rethrown.
void run_session(const std::vector<SessionRun>& runs, const SessionOptions& options,
                 const std::function<void(size_t experiment, RunReport& report)>& on_done);

// A session of one experiment; on_row (may be empty) is called after each point.
RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const std::function<void(size_t point, const report::ResultRow&)>& on_row, unsigned jobs = 1);

}  // namespace ipisim::experiment
