#include "cli/run_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "config/error.h"
#include "config/suggest.h"
#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "experiment/results_folder.h"
#include "experiment/session.h"

namespace ipisim::cli {

namespace {

// A name that is neither a file nor an experiment in the experiments directory: an error with
// the closest experiment names.
void check_experiment_exists(const std::string& file, const std::string& arg, const DataDirs& dirs) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec) || arg.find('/') != std::string::npos) return;
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dirs.experiments, ec)) {
        if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    throw config::ConfigError(
        arg, 0, "(file)",
        fmt::format("no such file, nor experiment in {}{}", dirs.experiments, config::did_you_mean(arg, names)));
}

}  // namespace

int run_command(const RunArgs& args, const DataDirs& dirs) {
    experiment::catch_interrupts();
    check_output_args(args.output);
    check_uncertainty_args(args.output, args.shard.has_value());
    std::vector<std::string> overrides = args.overrides;
    if (args.seed) {
        // CLI11 reads "-1" into the uint64_t as 2^64 - 1: the message states both ends.
        if (*args.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            throw config::ConfigError("--seed", 0, "experiment.seed",
                                      fmt::format("must be 0 to {}", std::numeric_limits<int64_t>::max()));
        }
        overrides.push_back(fmt::format("experiment.seed={}", *args.seed));
    }
    const std::string file = resolve_experiment(args.experiment, dirs);
    check_experiment_exists(file, args.experiment, dirs);
    const experiment::Experiment e = experiment::load_experiment(file, overrides);
    experiment::PreparedExperiment prepared = experiment::prepare_experiment(e, dirs.machines);

    const std::filesystem::path out =
        args.out_dir.empty() ? std::filesystem::path("results") / e.name() : std::filesystem::path(args.out_dir);
    Console console(args.output.console);
    const unsigned jobs = args.jobs > 0 ? args.jobs : experiment::default_jobs();
    // The sampled machines run before the folder is opened: a folder that would be refused is
    // refused first.
    if (args.output.uncertainty > 0) {
        experiment::check_results_folder(out, e.name(), experiment::FolderOptions{args.resume, args.force});
    }
    run_uncertainty_samples(args.output, console, {&prepared}, {out}, args.resume, jobs);
    report::TraceOptions trace;
    std::vector<experiment::SessionRun> runs = {session_run(args.output, prepared, out, args.output.trace, trace)};
    runs[0].folder = experiment::FolderOptions{args.resume, args.force};
    runs[0].shard = args.shard;
    experiment::SessionOptions options;
    options.jobs = jobs;
    options.hooks = console_hooks(console, runs);
    experiment::RunReport report;
    experiment::run_session(runs, options, [&](size_t, experiment::RunReport& r) { report = std::move(r); });

    console.out(args.output.format == "json" ? report.json : report.text);
    console.warn(report.warnings);
    if (runs[0].trace != nullptr) {
        console.note(
            fmt::format("trace of point {} ({}) in {}\n", trace.point, point_text(prepared, trace.point), trace.file));
    }
    console.note(fmt::format(
        "{} points{}, {} events in {:.3f} s host ({:.3g} events/s); results in {}\n", report.results.rows.size(),
        args.shard ? " (shard " + args.shard->text() + ")" : "", report.events, report.host_seconds,
        report.host_seconds > 0 ? static_cast<double>(report.events) / report.host_seconds : 0.0, out.string()));
    return report_violations(console, report.results, "") ? 1 : 0;
}

}  // namespace ipisim::cli
