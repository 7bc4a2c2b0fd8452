#include "cli/run_command.h"

#include <fmt/format.h>

#include <chrono>

#include "cli/experiment.h"
#include "cli/run_experiment.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace ipisim::cli {

int run_command(const RunArgs& args, const DataDirs& dirs) {
    std::vector<std::string> overrides = args.overrides;
    if (args.seed) overrides.push_back(fmt::format("experiment.seed={}", *args.seed));
    const Experiment experiment = load_experiment(resolve_experiment(args.experiment, dirs), overrides);

    const auto start = std::chrono::steady_clock::now();
    uint64_t events = 0;
    RunOptions options;
    options.machines_dir = dirs.machines;
    options.on_row = [&](size_t point, const report::ResultRow& row) {
        events += row.events;
        std::string swept;
        for (const std::string& key : experiment.swept) {
            swept += fmt::format(" {}={}", key, report::cell_text(row.params[key]));
        }
        fmt::print(stderr, "[{}/{}]{}\n", point + 1, experiment.points(), swept);
    };
    const report::ExperimentResults results = run_experiment(experiment, options);
    const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const std::filesystem::path out =
        args.out_dir.empty() ? std::filesystem::path("results") / experiment.name : std::filesystem::path(args.out_dir);
    write_experiment_outputs(experiment, results, out);

    fmt::print("{}", report::render_summary(results, experiment.published));
    fmt::print("{}", report::render_seed_shape(experiment.shape, results, experiment.published));
    fmt::print(stderr, "{} points, {} events in {:.3f} s host ({:.3g} events/s); results in {}\n", results.rows.size(),
               events, host_seconds, host_seconds > 0 ? static_cast<double>(events) / host_seconds : 0.0, out.string());
    return 0;
}

}  // namespace ipisim::cli
