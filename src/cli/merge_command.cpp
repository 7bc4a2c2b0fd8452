#include "cli/merge_command.h"

#include <fmt/format.h>

#include "experiment/interrupt.h"
#include "experiment/merge.h"
#include "report/seed_shape.h"
#include "report/summary.h"

namespace ipisim::cli {

int merge_command(const MergeArgs& args, const DataDirs&) {
    experiment::catch_interrupts();
    std::vector<std::filesystem::path> dirs(args.shards.begin(), args.shards.end());
    experiment::MergedShards merged = experiment::read_shards(dirs);
    // The run's own configuration gives the table shapes and published values.
    const experiment::Experiment e = experiment::load_experiment(merged.config.string(), {});
    report::ExperimentResults results;
    results.experiment = e.name();
    results.seed = e.seed();
    for (const experiment::SweepKey& s : e.sweep) results.swept.push_back(s.name);
    results.rows = std::move(merged.rows);

    experiment::FolderOptions options;
    options.force = args.force;
    experiment::ResultsFolder folder(args.out_dir, merged.identity, options);
    experiment::InterruptScope scope(folder);
    folder.begin();
    folder.finish(results);
    fmt::print("{}",
               report::render_summary(results, e.published) + report::render_seed_shape(e.shape, results, e.published));
    fmt::print(stderr, "merged {} shards: {} points; results in {}\n", dirs.size(), results.rows.size(), args.out_dir);
    return 0;
}

}  // namespace ipisim::cli
