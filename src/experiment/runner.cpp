#include "experiment/runner.h"

#include <fmt/format.h>

#include <cmath>
#include <mutex>

#include "check/monitors.h"
#include "config/error.h"
#include "experiment/build_info.h"
#include "experiment/parallel.h"
#include "experiment/results_folder.h"
#include "experiment/system.h"
#include "report/published.h"
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

// A metric that is not a finite number (0/0, x/0) has no value JSON can hold: null, with the
// reason beside it, so it is never written silently.
void name_undefined_metrics(report::ResultRow& row) {
    for (auto it = row.metrics.begin(); it != row.metrics.end(); ++it) {
        nlohmann::ordered_json& value = it.value();
        if (!value.is_number_float() || std::isfinite(value.get<double>())) continue;
        const double v = value.get<double>();
        const std::string reason = std::isnan(v) ? "0/0: nothing was measured in the window" : "a division by zero";
        value = nullptr;
        row.undefined[it.key()] = reason;
    }
}

}  // namespace

PreparedExperiment prepare_experiment(const Experiment& e, const std::string& machines_dir) {
    std::optional<LoadedMachine> machine;
    if (e.has_machine()) machine = load_experiment_machine(e, machines_dir);
    return prepare_experiment(e, std::move(machine));
}

PreparedExperiment prepare_experiment(const Experiment& e, std::optional<LoadedMachine> machine) {
    PreparedExperiment out;
    out.experiment = e;
    out.machine = std::move(machine);
    std::optional<kernel::MachineInfo> info;
    if (out.machine) {
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

report::ExperimentResults describe_results(const PreparedExperiment& prepared) {
    const Experiment& e = prepared.experiment;
    report::ExperimentResults results;
    results.experiment = e.name();
    results.description = e.table.description;
    results.seed = e.seed();
    results.runs = e.runs();
    for (const SweepKey& s : e.sweep) results.swept.push_back(s.name);
    results.report = report::shape_json(e.shape);
    results.ipisim_version = std::string(ipisim_version());
    results.git_commit = std::string(git_commit());
    if (prepared.machine) {
        results.machine = prepared.machine->spec->name;
        results.machine_description = prepared.machine->spec->description;
        results.machine_hash = machine_hash(prepared);
        if (const auto* v = prepared.base_kernel.get_as<std::string>("version")) results.kernel = v->get();
    }
    // Which rows are compared with published values depends on their parameters only: the note
    // is that of every point of the sweep, whichever of them this run (or shard) runs.
    report::ExperimentResults all = results;
    for (const PreparedPoint& p : prepared.points) {
        report::ResultRow row;
        row.params = p.row_params;
        all.rows.push_back(std::move(row));
    }
    report::attach_published(all, e.published, e.file_setup);
    results.published_source = all.published_source;
    results.published_note = all.published_note;
    results.uncertainty = prepared.uncertainty;
    return results;
}

namespace {

struct OneRun {
    workload::RunResult run;
    nlohmann::ordered_json check;
};

// One run of a point with `seed`.
OneRun run_once(PreparedExperiment& prepared, PreparedPoint& p, uint64_t seed) {
    const Experiment& e = prepared.experiment;
    OneRun out;
    if (prepared.machine) {
        System sys(prepared.machine->spec, p.kernel);
        // The invariant monitors watch every point (observers: the fingerprint is unchanged).
        check::MonitorOptions options;
        options.no_progress_bound = e.table.no_progress_bound;
        check::Monitors monitors(sys.platform(), options, &sys.kernel());
        {
            const check::Monitors::Installed on(monitors);
            out.run = p.workload->run(workload::RunContext{seed, &sys.kernel()});
            monitors.finish_run();
        }
        out.check = monitors.summary();
        sys.record_run(out.run);
        if (e.workload.traits.reports_profile) out.run.profile = sys.profile();
    } else {
        out.run = p.workload->run(workload::RunContext{seed, nullptr});
    }
    return out;
}

// The checker's summaries of several runs as one: violations summed, the first one named.
void merge_check(nlohmann::ordered_json& into, const nlohmann::ordered_json& more) {
    if (!more.is_object() || !more.contains("violations")) return;
    if (!into.is_object() || !into.contains("violations")) {
        into = more;
        return;
    }
    const uint64_t before = into["violations"].get<uint64_t>();
    const uint64_t add = more["violations"].get<uint64_t>();
    if (before == 0 && add > 0) {
        into = more;
    } else {
        into["violations"] = before + add;
    }
}

// [experiment] runs > 1: each metric's values over the runs, and their mean as the metric (an
// integer metric's mean rounded to the nearest integer; a metric a run leaves undefined is the
// mean of the runs that define it, null if none does).
void average_runs(const std::vector<workload::RunResult>& runs, nlohmann::ordered_json& metrics,
                  nlohmann::ordered_json& per_run) {
    per_run = nlohmann::ordered_json::object();
    for (auto it = metrics.begin(); it != metrics.end(); ++it) {
        nlohmann::ordered_json values = nlohmann::ordered_json::array();
        double sum = 0;
        size_t n = 0;
        bool integer = true;
        for (const workload::RunResult& r : runs) {
            const nlohmann::ordered_json v = r.metrics.value(it.key(), nlohmann::ordered_json());
            values.push_back(v);
            if (!v.is_number()) continue;
            integer = integer && v.is_number_integer();
            sum += v.get<double>();
            ++n;
        }
        per_run[it.key()] = std::move(values);
        if (n == 0) continue;  // undefined in every run: stays null
        const double mean = sum / static_cast<double>(n);
        if (integer) {
            it.value() = static_cast<int64_t>(std::llround(mean));
        } else {
            it.value() = mean;
        }
    }
}

}  // namespace

report::ResultRow run_point(PreparedExperiment& prepared, size_t point, const report::TraceOptions* trace) {
    const Experiment& e = prepared.experiment;
    PreparedPoint& p = prepared.points.at(point);
    workload::RunResult run;
    nlohmann::ordered_json check;
    nlohmann::ordered_json metrics_runs = nlohmann::ordered_json::object();
    nlohmann::ordered_json latency;
    {
        // The first run is the one observed: latency histograms, and the trace of one point.
        const report::PointRecorder recorder(point, trace);
        OneRun r = run_once(prepared, p, e.seed());
        run = std::move(r.run);
        check = std::move(r.check);
        latency = recorder.latency();
        recorder.write_trace(p.row_params);
    }
    if (e.runs() > 1) {
        std::vector<workload::RunResult> all{run};
        for (uint32_t i = 1; i < e.runs(); ++i) {
            OneRun r = run_once(prepared, p, e.seed() + i);
            merge_check(check, r.check);
            run.fingerprint = run.fingerprint * 0x100000001b3ULL ^ r.run.fingerprint;
            run.events += r.run.events;
            run.simulated_seconds += r.run.simulated_seconds;
            all.push_back(std::move(r.run));
        }
        average_runs(all, run.metrics, metrics_runs);
    }
    report::ResultRow row;
    row.point = point;
    row.params = p.row_params;
    row.metrics = run.metrics;
    row.profile = run.profile;
    row.fingerprint = run.fingerprint;
    row.events = run.events;
    row.simulated_seconds = run.simulated_seconds;
    row.metrics_runs = std::move(metrics_runs);
    row.latency = std::move(latency);
    row.check = std::move(check);
    name_undefined_metrics(row);
    if (point < prepared.spreads.size()) {
        row.metrics_interval = prepared.spreads[point].interval;
        row.metrics_median = prepared.spreads[point].median;
    }
    // A row's published values depend on it alone (and the machine): attached as it finishes,
    // so a partial results.json has them too.
    report::ExperimentResults one;
    one.machine = prepared.machine ? prepared.machine->spec->name : "";
    one.rows.push_back(std::move(row));
    report::attach_published(one, e.published, e.file_setup);
    return std::move(one.rows.front());
}

report::ExperimentResults run_prepared(PreparedExperiment& prepared, const PointHooks& hooks, unsigned jobs) {
    if (hooks.trace != nullptr) check_trace_point(prepared, hooks.trace->point);
    report::ExperimentResults results = describe_results(prepared);
    std::mutex reporting;  // the hooks are called one at a time
    results.rows = run_parallel<report::ResultRow>(jobs, prepared.points.size(), [&](size_t point) {
        if (hooks.on_start) {
            const std::lock_guard<std::mutex> guard(reporting);
            hooks.on_start(point);
        }
        report::ResultRow row = run_point(prepared, point, hooks.trace);
        if (hooks.on_row) {
            const std::lock_guard<std::mutex> guard(reporting);
            hooks.on_row(point, row);
        }
        return row;
    });
    return results;
}

report::ExperimentResults run_experiment(const Experiment& e, const RunOptions& options) {
    PreparedExperiment prepared = prepare_experiment(e, options.machines_dir);
    return run_prepared(prepared, PointHooks{nullptr, options.on_row, options.trace}, options.jobs);
}

void write_experiment_outputs(const PreparedExperiment& prepared, const report::ExperimentResults& results,
                              const std::filesystem::path& out_dir) {
    const FolderIdentity id = identity_of(prepared, std::nullopt);
    report::write_text_file(out_dir / "config.toml", id.config_text);
    report::write_text_file(out_dir / "results.csv", report::results_csv(results));
    report::write_text_file(out_dir / "results.json", folder_json(id, results, true).dump(2) + "\n");
}

}  // namespace ipisim::experiment
