#include "experiment/session.h"

#include <fmt/format.h>

#include <chrono>

#include "report/plot.h"
#include "report/seed_shape.h"
#include "report/shape_json.h"

namespace ipisim::experiment {

namespace {

// Plots never fail a run whose results are written: what kept them from being drawn is a
// warning.
std::string draw_plots(const std::filesystem::path& out_dir) {
    try {
        const report::PlotOutput out = report::plot_results(out_dir);
        std::string w;
        if (!out.note.empty()) w += fmt::format("ipisim: warning: {}\n", out.note);
        if (!out.warnings.empty()) w += fmt::format("ipisim: warning: {}", out.warnings);
        return w;
    } catch (const std::exception& e) {
        return fmt::format("ipisim: warning: no plots: {}\n", e.what());
    }
}

}  // namespace

std::string render_report(const report::ExperimentResults& results, const report::SummaryOptions& summary) {
    const report::Published published = report::published_of(results);
    return report::render_summary(results, published, summary) +
           report::render_seed_shape(report::shape_from_json(results.report), results, published);
}

RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const SessionOptions& options) {
    RunReport out;
    const auto start = std::chrono::steady_clock::now();
    out.results = run_prepared(prepared, options.hooks);
    out.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const report::ResultRow& r : out.results.rows) out.events += r.events;
    if (!options.summary.metrics.empty()) report::check_metrics(out.results, options.summary.metrics);
    write_experiment_outputs(prepared, out.results, out_dir);
    if (options.plots) out.warnings = draw_plots(out_dir);
    out.text = render_report(out.results, options.summary);
    return out;
}

}  // namespace ipisim::experiment
