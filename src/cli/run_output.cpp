#include "cli/run_output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "cli/output_paths.h"
#include "config/error.h"
#include "config/units.h"
#include "experiment/folder_lock.h"
#include "experiment/results_folder.h"
#include "experiment/uncertainty.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace ipisim::cli {

void check_output_args(const OutputArgs& args) {
    if (args.format != "text" && args.format != "json") {
        throw config::ConfigError("--format", 0, args.format, "must be text or json");
    }
    if (args.trace.empty() && !args.trace_window.empty()) {
        throw config::ConfigError("--trace-window", 0, args.trace_window, "needs --trace");
    }
    if (args.trace.empty() && args.trace_point) {
        throw config::ConfigError("--trace-point", 0, std::to_string(*args.trace_point), "needs --trace");
    }
    if (!args.trace_window.empty()) (void)report::parse_trace_window(args.trace_window);
    if (!args.metrics.empty()) (void)report::parse_metric_list(args.metrics);
    // The trace is written when its point has run: a place it cannot go is found now.
    if (!args.trace.empty() && args.trace_is_folder) check_output_folder("--trace", args.trace);
    if (!args.trace.empty() && !args.trace_is_folder) check_output_file("--trace", args.trace);
}

namespace {

// --metrics names the workload's declared metrics: checked before the first point runs.
void check_declared_metrics(const experiment::Experiment& e, const std::vector<std::string>& names) {
    std::vector<std::string> known;
    for (const config::ParamInfo& p : e.workload.metrics.params) known.push_back(p.key);
    for (const std::string& n : names) {
        if (std::find(known.begin(), known.end(), n) != known.end()) continue;
        throw config::ConfigError("--metrics", 0, n,
                                  fmt::format("no such metric (there are: {})", fmt::join(known, ", ")));
    }
}

}  // namespace

std::string point_text(const experiment::PreparedExperiment& prepared, size_t point) {
    const nlohmann::ordered_json& params = prepared.points[point].row_params;
    std::string s;
    for (const experiment::SweepKey& k : prepared.experiment.sweep) {
        if (!params.contains(k.name)) continue;
        s += fmt::format("{}{}={}", s.empty() ? "" : " ", k.name, report::cell_text(params[k.name]));
    }
    return s;
}

report::TraceWindow default_trace_window(const experiment::PreparedPoint& point) {
    constexpr sim::Picos kSpan(200'000'000);  // 200 us: a few thousand events on a big machine
    sim::Picos from = sim::Picos::zero();
    if (const auto* warmup = point.params_written.get_as<std::string>("warmup")) {
        std::string why;
        if (const std::optional<sim::Picos> w = config::parse_duration(warmup->get(), &why)) from = *w;
    }
    return report::TraceWindow{from, from + kSpan};
}

experiment::SessionRun session_run(const OutputArgs& args, experiment::PreparedExperiment& prepared,
                                   const std::filesystem::path& out_dir, const std::string& trace_file,
                                   report::TraceOptions& trace) {
    experiment::SessionRun run;
    run.prepared = &prepared;
    run.out_dir = out_dir;
    if (!args.metrics.empty()) {
        run.summary.metrics = report::parse_metric_list(args.metrics);
        check_declared_metrics(prepared.experiment, run.summary.metrics);
    }
    run.summary.latency = args.latency;
    if (!trace_file.empty()) {
        trace.file = trace_file;
        trace.point = args.trace_point.value_or(prepared.points.empty() ? 0 : prepared.points.size() - 1);
        experiment::check_trace_point(prepared, trace.point);
        if (!args.trace_window.empty()) {
            trace.window = report::parse_trace_window(args.trace_window);
        } else if (args.short_trace_window) {
            trace.window = default_trace_window(prepared.points[trace.point]);
        }
        run.trace = &trace;
    }
    return run;
}

void check_uncertainty_args(const OutputArgs& args, bool shard) {
    if (args.uncertainty == 0) return;
    const std::string n = std::to_string(args.uncertainty);
    if (shard) throw config::ConfigError("--uncertainty", 0, n, "cannot be combined with --shard");
}

void run_uncertainty_samples(const OutputArgs& args, Console& console,
                             const std::vector<experiment::PreparedExperiment*>& experiments,
                             const std::vector<std::filesystem::path>& out_dirs, bool resume, unsigned jobs) {
    if (args.uncertainty == 0) return;
    // One writer per folder while the samples run (the session locks them again for the
    // nominal run).
    std::vector<std::unique_ptr<experiment::FolderLock>> locks;
    for (const std::filesystem::path& dir : out_dirs) {
        std::filesystem::create_directories(dir);
        locks.push_back(std::make_unique<experiment::FolderLock>(dir));
    }
    const auto open_journal = [&](size_t x, size_t runs) {
        const experiment::PreparedExperiment& p = *experiments[x];
        nlohmann::ordered_json identity = experiment::journal_identity(p);
        identity["samples"] = args.uncertainty;
        identity["runs"] = runs;
        auto journal = std::make_unique<experiment::RunJournal>(out_dirs.at(x) / "uncertainty_runs.jsonl",
                                                                "uncertainty samples of " + p.experiment.name(),
                                                                identity, runs, runs, resume);
        if (journal->kept() > 0) {
            console.note(fmt::format("{}: {} sample runs kept from {}\n", p.experiment.name(), journal->kept(),
                                     journal->file().string()));
        }
        return journal;
    };
    const auto start = std::chrono::steady_clock::now();  // host time, for the note only
    size_t runs = 0;
    for (const experiment::PreparedExperiment* p : experiments) {
        const size_t costs = p->machine ? experiment::ranged_costs(*p->machine->spec).size() : 0;
        if (costs == 0) {
            console.warn(fmt::format("ipisim: warning: {}: no ranged costs on its machine: no intervals\n",
                                     p->experiment.name()));
            continue;
        }
        runs += args.uncertainty * p->points.size();
        console.note(fmt::format("{}: {} sampled machines over {} ranged costs, {} runs\n", p->experiment.name(),
                                 args.uncertainty, costs, args.uncertainty * p->points.size()));
    }
    experiment::run_uncertainty(experiments, args.uncertainty, jobs, {}, experiment::kUncertaintyBatches, open_journal);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    console.note(fmt::format("uncertainty: {} sample runs in {:.1f} s host\n", runs, seconds));
}

experiment::SessionHooks console_hooks(Console& console, const std::vector<experiment::SessionRun>& runs) {
    experiment::SessionHooks hooks;
    hooks.scheduled = [&console](size_t points) { console.begin(points); };
    hooks.resumed = [&console, &runs](size_t x, size_t kept, const std::filesystem::path& dir) {
        console.note(fmt::format("{}: resuming: {} point{} kept from {}\n", runs[x].prepared->experiment.name(), kept,
                                 kept == 1 ? "" : "s", (dir / "results.json").string()));
    };
    hooks.started = [&console, &runs](size_t x, size_t point) {
        console.point_started(runs[x].prepared->experiment.name(), point_text(*runs[x].prepared, point));
    };
    hooks.finished = [&console, &runs](size_t x, size_t point, const report::ResultRow& row) {
        const experiment::PreparedExperiment& p = *runs[x].prepared;
        const std::string where = point_text(p, point);
        console.point_finished(p.experiment.name(), where);
        for (const auto& [metric, reason] : row.undefined.items()) {
            console.warn(fmt::format("{}: metric {} is undefined at point {}{}{}: {}\n", p.experiment.name(), metric,
                                     point, where.empty() ? "" : " ", where, reason.get<std::string>()));
        }
    };
    return hooks;
}

bool report_violations(Console& console, const report::ExperimentResults& results, const std::string& experiment) {
    bool any = false;
    for (const report::ResultRow& row : results.rows) {
        const nlohmann::ordered_json& c = row.check;
        if (!c.contains("first")) continue;
        console.warn(fmt::format("ipisim: check: {}point {}: {} violation(s); first: {} on cpu{}: {}\n",
                                 experiment.empty() ? "" : experiment + ": ", row.point + 1,
                                 c["violations"].get<uint64_t>(), c["first"]["kind"].get<std::string>(),
                                 c["first"]["cpu"].get<uint32_t>(), c["first"]["diagnosis"].get<std::string>()));
        any = true;
    }
    return any;
}

}  // namespace ipisim::cli
