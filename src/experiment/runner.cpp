#include "experiment/runner.h"

#include <fmt/format.h>

#include "check/monitors.h"
#include "config/error.h"
#include "experiment/system.h"
#include "report/results_files.h"
#include "report/shape_json.h"
#include "sim/registry.h"

namespace ipisim::experiment {

namespace {

std::unique_ptr<workload::Workload> make_workload(const Experiment& e) {
    return sim::Registry<workload::Workload>::instance().create(e.table.workload);
}

// A workload that models x86 code cannot run on another architecture.
void check_architecture(const Experiment& e, const kernel::MachineInfo& machine) {
    if (e.workload.traits.x86_only && !machine.x86()) {
        throw config::ConfigError(
            e.machine_file, e.machine_line, "experiment.machine",
            fmt::format("the {} workload models x86 code; machine {} is not x86", e.table.workload, machine.name()));
    }
}

}  // namespace

PreparedExperiment prepare_experiment(const Experiment& e, const std::string& machines_dir) {
    PreparedExperiment out;
    out.experiment = e;
    std::optional<kernel::MachineInfo> info;
    if (e.has_machine()) {
        out.machine = load_experiment_machine(e, machines_dir);
        info.emplace(*out.machine->spec);
        check_architecture(e, *info);
    }
    auto read_point = [&](PointTables tables) {
        PreparedPoint p;
        p.workload = make_workload(e);
        p.workload->read(tables.params);
        if (info) {
            p.kernel = kernel::read_kernel_config(tables.kernel, *info);
            p.workload->check(workload::PointSetup{tables.params, tables.kernel, *info, p.kernel});
            kernel::kernel_schema().write(p.kernel, p.kernel_written, kernel::kernel_conditions(*info));
        }
        p.workload->write(p.params_written);
        p.row_params = row_params(e, tables);
        return p;
    };
    // The file's own values first (a bad [params] value of a swept key is an error too).
    PreparedPoint base = read_point(base_tables(e));
    out.base_params = std::move(base.params_written);
    out.base_kernel = std::move(base.kernel_written);
    for (size_t point = 0; point < e.points(); ++point) out.points.push_back(read_point(point_tables(e, point)));
    return out;
}

void check_trace_point(const PreparedExperiment& prepared, size_t point) {
    const size_t n = prepared.points.size();
    if (point >= n) {
        throw config::ConfigError(
            "--trace-point", 0, std::to_string(point),
            fmt::format("{} has {} point{} (0..{})", prepared.experiment.name(), n, n == 1 ? "" : "s", n - 1));
    }
}

namespace {

// What results.json says about the run besides its rows.
void describe(const PreparedExperiment& prepared, report::ExperimentResults& results) {
    const Experiment& e = prepared.experiment;
    results.experiment = e.name();
    results.description = e.table.description;
    results.seed = e.seed();
    for (const SweepKey& s : e.sweep) results.swept.push_back(s.name);
    results.report = report::shape_json(e.shape);
    if (prepared.machine) results.machine = prepared.machine->spec->name;
}

}  // namespace

report::ExperimentResults run_prepared(PreparedExperiment& prepared, const PointHooks& hooks) {
    const Experiment& e = prepared.experiment;
    if (hooks.trace != nullptr) check_trace_point(prepared, hooks.trace->point);
    report::ExperimentResults results;
    describe(prepared, results);
    for (size_t point = 0; point < prepared.points.size(); ++point) {
        if (hooks.on_start) hooks.on_start(point);
        PreparedPoint& p = prepared.points[point];
        workload::RunResult run;
        nlohmann::ordered_json check;
        report::PointRecorder recorder(point, hooks.trace);  // latency histograms; the trace of one point
        if (prepared.machine) {
            System sys(prepared.machine->spec, p.kernel);
            // The invariant monitors watch every point (observers: the fingerprint is unchanged).
            check::Monitors monitors(sys.platform(), {}, &sys.kernel());
            {
                const check::Monitors::Installed on(monitors);
                run = p.workload->run(workload::RunContext{e.seed(), &sys.kernel()});
                monitors.finish_run();
            }
            check = monitors.summary();
            sys.record_run(run);
            if (e.workload.traits.reports_profile) run.profile = sys.profile();
        } else {
            run = p.workload->run(workload::RunContext{e.seed(), nullptr});
        }
        report::ResultRow row;
        row.params = p.row_params;
        row.metrics = run.metrics;
        row.profile = run.profile;
        row.fingerprint = run.fingerprint;
        row.events = run.events;
        row.simulated_seconds = run.simulated_seconds;
        row.check = std::move(check);
        row.latency = recorder.latency();
        recorder.write_trace(row.params);
        if (hooks.on_row) hooks.on_row(point, row);
        results.rows.push_back(std::move(row));
    }
    report::attach_published(results, e.published);
    return results;
}

report::ExperimentResults run_experiment(const Experiment& e, const RunOptions& options) {
    PreparedExperiment prepared = prepare_experiment(e, options.machines_dir);
    return run_prepared(prepared, PointHooks{nullptr, options.on_row, options.trace});
}

void write_experiment_outputs(const PreparedExperiment& prepared, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir) {
    report::write_text_file(out_dir / "results.json", report::results_json(results).dump(2) + "\n");
    report::write_text_file(out_dir / "results.csv", report::results_csv(results));
    report::write_text_file(out_dir / "config.toml", resolved_toml(prepared));
}

}  // namespace ipisim::experiment
