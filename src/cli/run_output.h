// The output flags `run` and `reproduce` share, and how they become a session's runs and hooks:
// the table's columns (--metrics), latency tables (--latency), a trace (--trace,
// --trace-window, --trace-point), the format of stdout (--format) and the console (--quiet,
// --progress; cli/console.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/console.h"
#include "experiment/session.h"
#include "report/point_recorder.h"

namespace ipisim::cli {

struct OutputArgs {
    std::string metrics;                // "a,b,c": the table's metric columns; empty: the narrow default
    bool latency = false;               // latency tables (p50/p90/p99/max) after the metrics
    std::string format = "text";        // "text": tables; "json": results.json documents on stdout
    ConsoleOptions console;             // --quiet, --progress
    std::string trace;                  // run: the trace file; reproduce: a folder of <experiment>.trace.json
    std::string trace_window;           // "2ms..2.2ms"; empty: the whole run, or with short_trace_window
                                        // the traced point's first 200 us after its warm-up
    bool short_trace_window = false;    // reproduce: a short default window (whole runs are huge)
    bool trace_is_folder = false;       // reproduce: --trace names a folder
    std::optional<size_t> trace_point;  // the traced point; default: the experiment's last
    size_t uncertainty = 0;             // --uncertainty N: sampled machines per point; 0: none
};

// --format must be "text" or "json", --trace-window needs --trace, and the trace must be
// writable where --trace says (cli/output_paths.h): config::ConfigError naming the flag
// otherwise. Checked before anything is loaded.
void check_output_args(const OutputArgs& args);

// The session run of one experiment into out_dir: the summary's metrics and latency tables,
// the trace (written to `trace_file`, at --trace-point or the last point; `trace` holds it and
// must outlive the run; a point beyond the experiment's is an error). The caller sets its
// folder options and shard.
experiment::SessionRun session_run(const OutputArgs& args, experiment::PreparedExperiment& prepared,
                                   const std::filesystem::path& out_dir, const std::string& trace_file,
                                   report::TraceOptions& trace);

// reproduce's trace window when none is given: 200 us from the end of the point's warm-up (its
// `warmup` parameter, already checked), or from 0 for a workload without one — so a short
// experiment (seed 002 and 004 run well under 2 ms) still gets events in its trace.
report::TraceWindow default_trace_window(const experiment::PreparedPoint& point);

// The console's side of a session of `runs` (which must outlive it): progress from the points
// started and finished, the points a folder kept (--resume), and each undefined metric
// ("EXPERIMENT: metric X is undefined at point K (swept values): reason").
experiment::SessionHooks console_hooks(Console& console, const std::vector<experiment::SessionRun>& runs);

// The checker's monitors watched every point (docs/checker.md): warns on the console, one line
// per point with a violation (prefixed "EXPERIMENT: " when `experiment` is not empty), and
// returns whether there was any: a violation makes `run` and `reproduce` exit 1.
bool report_violations(Console& console, const report::ExperimentResults& results, const std::string& experiment);

// --uncertainty N (experiment/uncertainty.h): runs every point of the experiments on N sampled
// machines before their nominal run, which then reports the intervals. --shard cannot be
// combined with it (a config::ConfigError naming the flag): the intervals are over the samples
// of every point of one run. Each experiment's sample runs are kept as they finish in
// OUT/uncertainty_runs.jsonl (experiment/run_journal.h; `out_dirs` holds each experiment's
// folder, locked while the samples run), and with `resume` the runs a journal of the same
// samples kept are not run again. Nothing happens when args.uncertainty is 0.
void check_uncertainty_args(const OutputArgs& args, bool shard);
void run_uncertainty_samples(const OutputArgs& args, Console& console,
                             const std::vector<experiment::PreparedExperiment*>& experiments,
                             const std::vector<std::filesystem::path>& out_dirs, bool resume, unsigned jobs);

// The swept parameters of a result row: "threads=10 flush=ipi".
std::string point_text(const experiment::PreparedExperiment& prepared, size_t point);

}  // namespace ipisim::cli
