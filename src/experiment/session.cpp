#include "experiment/session.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "report/plot.h"
#include "report/published.h"
#include "report/seed_shape.h"
#include "report/shape_json.h"

namespace ipisim::experiment {

namespace {

using Clock = std::chrono::steady_clock;

// What the session knows of one experiment while its points run.
struct Progress {
    std::unique_ptr<ResultsFolder> folder;
    std::optional<InterruptScope> interruptible;
    std::vector<std::optional<report::ResultRow>> rows;  // by point (of its share)
    size_t remaining = 0;
    std::optional<Clock::time_point> started;
};

RunReport finish(const SessionRun& run, Progress& progress, const SessionOptions& options) {
    RunReport out;
    out.results = progress.folder->identity().header;
    for (std::optional<report::ResultRow>& row : progress.rows) {
        if (row) out.results.rows.push_back(std::move(*row));
    }
    for (const report::ResultRow& r : out.results.rows) out.events += r.events;
    if (!run.summary.metrics.empty()) report::check_metrics(out.results, run.summary.metrics);
    out.json = progress.folder->finish(out.results);
    if (options.plots) out.warnings = draw_plots(run.out_dir);
    out.text = render_report(out.results, run.summary);
    const Clock::time_point start = progress.started.value_or(Clock::now());
    out.host_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
}

}  // namespace

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

std::string render_report(const report::ExperimentResults& results, const report::SummaryOptions& summary) {
    const report::Published published = report::published_of(results);
    return report::render_summary(results, published, summary) +
           report::render_seed_shape(report::shape_from_json(results.report), results, published);
}

void run_session(const std::vector<SessionRun>& runs, const SessionOptions& options,
                 const std::function<void(size_t experiment, RunReport& report)>& on_done) {
    struct Job {
        size_t experiment;
        size_t point;
    };
    for (const SessionRun& run : runs) {
        if (run.trace != nullptr) check_trace_point(*run.prepared, run.trace->point);
    }
    std::vector<Progress> progress(runs.size());
    // Every folder opened (locked, checked) before any point runs.
    for (size_t x = 0; x < runs.size(); ++x) {
        const SessionRun& run = runs[x];
        progress[x].folder =
            std::make_unique<ResultsFolder>(run.out_dir, identity_of(*run.prepared, run.shard), run.folder);
    }
    std::vector<Job> jobs;
    for (size_t x = 0; x < runs.size(); ++x) {
        Progress& p = progress[x];
        p.interruptible.emplace(*p.folder);
        p.folder->begin();
        p.rows.resize(runs[x].prepared->points.size());
        for (const auto& [k, row] : p.folder->kept()) p.rows[k] = row;
        if (options.hooks.resumed && runs[x].folder.resume) {
            options.hooks.resumed(x, p.folder->kept().size(), runs[x].out_dir);
        }
        const report::TraceOptions* trace = runs[x].trace;
        for (size_t k : shard_points(p.rows.size(), runs[x].shard)) {
            // The traced point runs again even when kept, so its trace is written.
            if (p.rows[k] && (trace == nullptr || trace->point != k)) continue;
            p.rows[k].reset();
            jobs.push_back(Job{x, k});
            ++p.remaining;
        }
    }
    if (options.hooks.scheduled) options.hooks.scheduled(jobs.size());
    std::mutex lock;  // guards progress, next_to_finish, the hooks and on_done
    size_t next_to_finish = 0;
    // Caller holds `lock`.
    auto finish_ready = [&] {
        while (next_to_finish < runs.size() && progress[next_to_finish].remaining == 0) {
            RunReport report = finish(runs[next_to_finish], progress[next_to_finish], options);
            if (on_done) on_done(next_to_finish, report);
            ++next_to_finish;
        }
    };
    {
        const std::lock_guard<std::mutex> guard(lock);
        finish_ready();  // experiments without points to run
    }
    for_each_parallel(options.jobs, jobs.size(), [&](size_t i) {
        const Job job = jobs[i];
        const SessionRun& run = runs[job.experiment];
        {
            const std::lock_guard<std::mutex> guard(lock);
            if (!progress[job.experiment].started) progress[job.experiment].started = Clock::now();
            if (options.hooks.started) options.hooks.started(job.experiment, job.point);
        }
        report::ResultRow row = run_point(*run.prepared, job.point, run.trace);
        progress[job.experiment].folder->record(row);
        const std::lock_guard<std::mutex> guard(lock);
        if (options.hooks.finished) options.hooks.finished(job.experiment, job.point, row);
        Progress& p = progress[job.experiment];
        p.rows[job.point] = std::move(row);
        --p.remaining;
        finish_ready();
    });
}

}  // namespace ipisim::experiment
