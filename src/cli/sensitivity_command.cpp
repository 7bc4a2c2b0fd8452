#include "cli/sensitivity_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli/console.h"
#include "cli/output_paths.h"
#include "config/error.h"
#include "experiment/experiment.h"
#include "experiment/folder_lock.h"
#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "experiment/results_folder.h"
#include "experiment/runner.h"
#include "experiment/sensitivity.h"
#include "experiment/uncertainty.h"
#include "hw/machine.h"
#include "report/atomic_file.h"
#include "report/sensitivity_text.h"
#include "report/summary.h"
#include "report/tornado.h"

namespace ipisim::cli {

namespace {

// --metric names must be metrics the workload declares: checked before anything runs.
std::vector<std::string> chosen_metrics(const experiment::Experiment& e, const std::string& text) {
    if (text.empty()) return {};
    std::vector<std::string> known;
    for (const config::ParamInfo& p : e.workload.metrics.params) known.push_back(p.key);
    std::vector<std::string> out = report::parse_metric_list(text);
    for (const std::string& n : out) {
        if (std::find(known.begin(), known.end(), n) == known.end()) {
            throw config::ConfigError("--metric", 0, n,
                                      fmt::format("no such metric (there are: {})", fmt::join(known, ", ")));
        }
    }
    return out;
}

}  // namespace

int sensitivity_command(const SensitivityArgs& args, const DataDirs& dirs) {
    experiment::catch_interrupts();
    const experiment::Experiment e =
        experiment::load_experiment(resolve_experiment(args.experiment, dirs), args.overrides);
    std::vector<std::string> metrics = chosen_metrics(e, args.metrics);
    const experiment::PreparedExperiment prepared = experiment::prepare_experiment(e, dirs.machines);
    if (!prepared.machine) {
        throw config::ConfigError(
            e.file, 0, "experiment.workload",
            fmt::format("the {} workload runs without a machine: it has no costs to screen", e.table.workload));
    }
    if (experiment::ranged_costs(*prepared.machine->spec).empty()) {
        const hw::MachineSpec& m = *prepared.machine->spec;
        throw config::ConfigError(m.source_path.empty() ? e.file : m.source_path, 0, "machine",
                                  fmt::format("{} has no ranged costs (a cost with a range = [low, high]): there is "
                                              "nothing to screen",
                                              m.name));
    }
    const std::filesystem::path out = args.out_dir.empty() ? std::filesystem::path("results") / e.name() / "sensitivity"
                                                           : std::filesystem::path(args.out_dir);
    check_output_folder("--out", out);
    Console console(ConsoleOptions{args.quiet, ProgressMode::automatic});
    const unsigned jobs = args.jobs > 0 ? args.jobs : experiment::default_jobs();
    experiment::SensitivityPlan plan = experiment::plan_sensitivity(prepared);
    std::filesystem::create_directories(out);
    const experiment::FolderLock lock(out);  // one screen at a time writes this folder
    // Every finished run goes to the journal at once: an interrupt keeps them for --resume.
    nlohmann::ordered_json identity = experiment::journal_identity(prepared);
    identity["runs"] = plan.runs();
    experiment::RunJournal journal(out / "sensitivity_runs.jsonl", "sensitivity of " + e.name(), identity, plan.runs(),
                                   plan.runs_to_do(), args.resume);
    const experiment::InterruptScope interruptible(journal);
    console.note(fmt::format(
        "{}: {} ranged costs at their low and high ends: {} runs of {} point(s), {} job(s){}\n", e.name(),
        plan.costs.size(), plan.runs(), plan.points, jobs,
        journal.kept() > 0 ? fmt::format("; {} kept from {}", journal.kept(), journal.file().string()) : ""));
    const auto start = std::chrono::steady_clock::now();  // host time, for the note only
    // On a terminal, "[58/150] seed002_gic_barrier cpu.irq_entry low, point 1  12 s, ETA 20 s".
    console.begin(plan.runs_to_do() - journal.kept());
    const experiment::SensitivityRuns runs = experiment::run_sensitivity(
        plan, jobs,
        [&](size_t, size_t, size_t run) {
            console.point_finished(e.name(), experiment::sensitivity_run_text(plan, run));
        },
        &journal);
    if (metrics.empty()) metrics = experiment::default_sensitivity_metrics(prepared, runs.nominal.front());
    const nlohmann::ordered_json j = experiment::sensitivity_json(prepared, runs, metrics);
    report::write_file_atomically(out / "sensitivity.json", j.dump(2) + "\n");
    console.out(report::sensitivity_text(j, args.top));
    console.warn(report::draw_tornado_plots(j, out, std::max<size_t>(args.top, 10)));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    console.note(fmt::format("{:.1f} s host; sensitivity.json and tornado plots in {}\n", seconds, out.string()));
    return 0;
}

}  // namespace ipisim::cli
