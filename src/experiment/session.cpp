#include "experiment/session.h"

#include <chrono>

#include "report/seed_shape.h"
#include "report/summary.h"

namespace ipisim::experiment {

RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const std::function<void(size_t point, const report::ResultRow&)>& on_row) {
    RunReport out;
    const auto start = std::chrono::steady_clock::now();
    out.results = run_prepared(prepared, on_row);
    out.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const report::ResultRow& r : out.results.rows) out.events += r.events;
    write_experiment_outputs(prepared, out.results, out_dir);
    const Experiment& e = prepared.experiment;
    out.text =
        report::render_summary(out.results, e.published) + report::render_seed_shape(e.shape, out.results, e.published);
    return out;
}

}  // namespace ipisim::experiment
