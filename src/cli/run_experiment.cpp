#include "cli/run_experiment.h"

#include <fmt/format.h>

#include "cli/toml_json.h"
#include "config/error.h"
#include "report/plot.h"
#include "report/results_files.h"
#include "report/shape_json.h"
#include "sim/registry.h"
#include "workload/workload.h"

namespace ipisim::cli {

namespace {

// The machine file an experiment names must exist before any point runs.
void check_machine(const Experiment& e, const std::string& machines_dir) {
    if (e.machine.empty()) return;
    const std::filesystem::path file = std::filesystem::path(machines_dir) / (e.machine + ".toml");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
        throw config::ConfigError(e.machine_file, e.machine_line, "experiment.machine",
                                  fmt::format("no machine \"{}\" ({} does not exist)", e.machine, file.string()));
    }
}

// Hands the machine name to the workload when RunContext can carry it; an experiment that names
// a machine the workloads cannot receive is an error, never silently ignored.
template <class Context>
void set_machine(Context& ctx, const Experiment& e) {
    if constexpr (requires { ctx.machine = e.machine; }) {
        ctx.machine = e.machine;
    } else if (!e.machine.empty()) {
        throw config::ConfigError(e.machine_file, e.machine_line, "experiment.machine",
                                  "this build's workloads do not take a machine yet");
    }
}

// Every published metric of a matching row must be one the workload reports.
void check_published_metrics(const Experiment& e, const report::ResultRow& row) {
    const report::PublishedRow* p = report::find_published(e.published, row);
    if (p == nullptr) return;
    for (const auto& [name, value] : p->metrics.items()) {
        if (row.metrics.contains(name)) continue;
        std::string known;
        for (const auto& [m, v] : row.metrics.items()) {
            if (!known.empty()) known += ", ";
            known += m;
        }
        throw config::ConfigError(
            p->file, p->line, fmt::format("{}.{}", p->key, name),
            fmt::format("workload {} reports no metric \"{}\" (it reports: {})", e.workload, name, known));
    }
}

// A workload's complaint about a swept parameter names the [sweep] value it came from.
workload::RunResult run_point(workload::Workload& w, config::Table& params, const workload::RunContext& ctx,
                              const Experiment& e, size_t point) {
    try {
        return w.run(params, ctx);
    } catch (const config::ConfigError& err) {
        const std::vector<size_t> index = sweep_indices(e, point);
        for (size_t k = 0; k < e.swept.size(); ++k) {
            if (err.key() == params.dotted(e.swept[k]) && err.file() == e.file) {
                throw config::ConfigError(err.file(), err.line(), fmt::format("sweep.{}[{}]", e.swept[k], index[k]),
                                          err.problem());
            }
        }
        throw;
    }
}

}  // namespace

report::ExperimentResults run_experiment(const Experiment& experiment, const RunOptions& options) {
    check_machine(experiment, options.machines_dir);
    report::ExperimentResults results;
    results.experiment = experiment.name;
    results.description = experiment.description;
    results.machine = experiment.machine;
    results.seed = experiment.seed;
    results.swept = experiment.swept;
    results.report = report::shape_json(experiment.shape);
    const auto& workloads = sim::Registry<workload::Workload>::instance();
    for (size_t point = 0; point < experiment.points(); ++point) {
        const config::Document doc = point_document(experiment, point);
        config::Table params = doc.root().table("params");
        workload::RunContext ctx;
        ctx.seed = experiment.seed;
        ctx.machines_dir = options.machines_dir;
        set_machine(ctx, experiment);
        const std::unique_ptr<workload::Workload> w = workloads.create(experiment.workload);
        report::PointRecorder recorder(point, options.trace);  // latency histograms, trace
        const workload::RunResult run = run_point(*w, params, ctx, experiment, point);

        report::ResultRow row;
        const toml::table& values = *doc.tree().get_as<toml::table>("params");
        for (const std::string& key : experiment.param_keys) row.params[key] = to_json(*values.get(key));
        row.metrics = run.metrics;
        row.profile = run.profile;
        row.fingerprint = run.fingerprint;
        row.events = run.events;
        row.simulated_seconds = run.simulated_seconds;
        row.latency = recorder.latency();
        recorder.write_trace(row.params);
        check_published_metrics(experiment, row);
        if (options.on_row) options.on_row(point, row);
        results.rows.push_back(std::move(row));
    }
    report::attach_published(results, experiment.published);
    return results;
}

void write_experiment_outputs(const Experiment& experiment, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir) {
    report::write_text_file(out_dir / "results.json", report::results_json(results).dump(2) + "\n");
    report::write_text_file(out_dir / "results.csv", report::results_csv(results));
    report::write_text_file(out_dir / "config.toml", resolved_toml(experiment));
    report::print_plot_results(out_dir);  // plot_*.svg, plot_*.png; problems are warnings on stderr
}

}  // namespace ipisim::cli
