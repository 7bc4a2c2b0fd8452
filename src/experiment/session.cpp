#include "experiment/session.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "report/seed_shape.h"
#include "report/summary.h"

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

RunReport finish(const SessionRun& run, Progress& progress) {
    PreparedExperiment& prepared = *run.prepared;
    const Experiment& e = prepared.experiment;
    RunReport out;
    out.results.experiment = e.name();
    out.results.seed = e.seed();
    for (const SweepKey& s : e.sweep) out.results.swept.push_back(s.name);
    for (std::optional<report::ResultRow>& row : progress.rows) {
        if (row) out.results.rows.push_back(std::move(*row));
    }
    for (const report::ResultRow& r : out.results.rows) out.events += r.events;
    progress.folder->finish(out.results);
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
        for (size_t k : shard_points(p.rows.size(), runs[x].shard)) {
            if (p.rows[k]) continue;
            jobs.push_back(Job{x, k});
            ++p.remaining;
        }
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
        progress[job.experiment].folder->record(row);
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
    run_session({SessionRun{&prepared, out_dir, FolderOptions{}, std::nullopt}}, options,
                [&](size_t, RunReport& report) { out = std::move(report); });
    return out;
}

}  // namespace ipisim::experiment
