#include "cli/merge_command.h"

#include <fmt/format.h>

#include "cli/console.h"
#include "experiment/interrupt.h"
#include "experiment/merge.h"
#include "experiment/session.h"

namespace ipisim::cli {

int merge_command(const MergeArgs& args, const DataDirs&) {
    experiment::catch_interrupts();
    std::vector<std::filesystem::path> dirs(args.shards.begin(), args.shards.end());
    experiment::MergedShards merged = experiment::read_shards(dirs);
    const report::ExperimentResults& results = merged.results;

    experiment::FolderOptions options;
    options.force = args.force;
    experiment::ResultsFolder folder(args.out_dir, merged.identity, options);
    experiment::InterruptScope scope(folder);
    folder.begin();
    folder.finish(results);
    // What the unsharded run prints and draws, from the results alone.
    Console console(ConsoleOptions{});
    console.out(experiment::render_report(results, {}));
    console.warn(experiment::draw_plots(args.out_dir));
    console.note(
        fmt::format("merged {} shards: {} points; results in {}\n", dirs.size(), results.rows.size(), args.out_dir));
    return 0;
}

}  // namespace ipisim::cli
