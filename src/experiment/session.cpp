#include "experiment/session.h"

#include <chrono>
#include <mutex>
#include <optional>

#include "experiment/parallel.h"
#include "report/seed_shape.h"
#include "report/summary.h"

namespace ipisim::experiment {

namespace {

using Clock = std::chrono::steady_clock;

// What the session knows of one experiment while its points run.
struct Progress {
    std::vector<std::optional<report::ResultRow>> rows;  // by point
    size_t remaining = 0;
    std::optional<Clock::time_point> started;
};

RunReport finish(const SessionRun& run, Progress& progress) {
    PreparedExperiment& prepared = *run.prepared;
    const Experiment& e = prepared.experiment;
    RunReport out;
    out.results.experiment = e.name();
    out.results.seed = e.seed();
    for (const SweepKey& s : e.sweep) out.results.swept.push_back(s.name);
    for (std::optional<report::ResultRow>& row : progress.rows) out.results.rows.push_back(std::move(*row));
    for (const report::ResultRow& r : out.results.rows) out.events += r.events;
    write_experiment_outputs(prepared, out.results, run.out_dir);
    out.text =
        report::render_summary(out.results, e.published) + report::render_seed_shape(e.shape, out.results, e.published);
    const Clock::time_point start = progress.started.value_or(Clock::now());
    out.host_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
}

}  // namespace

void run_session(const std::vector<SessionRun>& runs, const SessionOptions& options,
                 const std::function<void(size_t experiment, RunReport& report)>& on_done) {
    struct Job {
        size_t experiment;
        size_t point;
    };
    std::vector<Job> jobs;
    std::vector<Progress> progress(runs.size());
    for (size_t x = 0; x < runs.size(); ++x) {
        const size_t n = runs[x].prepared->points.size();
        progress[x].rows.resize(n);
        progress[x].remaining = n;
        for (size_t p = 0; p < n; ++p) jobs.push_back(Job{x, p});
    }
    std::mutex lock;  // guards progress, next_to_finish and the hooks
    size_t next_to_finish = 0;
    // Caller holds `lock`.
    auto finish_ready = [&] {
        while (next_to_finish < runs.size() && progress[next_to_finish].remaining == 0) {
            RunReport report = finish(runs[next_to_finish], progress[next_to_finish]);
            if (on_done) on_done(next_to_finish, report);
            ++next_to_finish;
        }
    };
    {
        std::lock_guard<std::mutex> guard(lock);
        finish_ready();  // experiments without points
    }
    for_each_parallel(options.jobs, jobs.size(), [&](size_t i) {
        const Job job = jobs[i];
        {
            std::lock_guard<std::mutex> guard(lock);
            if (!progress[job.experiment].started) progress[job.experiment].started = Clock::now();
            if (options.hooks.started) options.hooks.started(job.experiment, job.point);
        }
        report::ResultRow row = run_point(*runs[job.experiment].prepared, job.point);
        std::lock_guard<std::mutex> guard(lock);
        if (options.hooks.finished) options.hooks.finished(job.experiment, job.point, row);
        Progress& p = progress[job.experiment];
        p.rows[job.point] = std::move(row);
        --p.remaining;
        finish_ready();
    });
}

RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const std::function<void(size_t point, const report::ResultRow&)>& on_row, unsigned jobs) {
    SessionOptions options;
    options.jobs = jobs;
    if (on_row)
        options.hooks.finished = [&](size_t, size_t point, const report::ResultRow& row) { on_row(point, row); };
    RunReport out;
    run_session({SessionRun{&prepared, out_dir}}, options, [&](size_t, RunReport& report) { out = std::move(report); });
    return out;
}

}  // namespace ipisim::experiment
