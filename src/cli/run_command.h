// `ipisim run FILE.toml [--seed N] [--set key=value]... [--out DIR] [--jobs N] [--shard i/N]
//  [--resume] [--force] [--metrics a,b] [--latency] [--trace FILE [--trace-window 2ms..2.2ms]
//  [--trace-point N]] [--format text|json] [--quiet] [--progress]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/data_dirs.h"
#include "cli/run_output.h"
#include "experiment/shard.h"

namespace ipisim::cli {

struct RunArgs {
    std::string experiment;                  // a path, or a name in the experiments directory
    std::optional<uint64_t> seed;            // overrides experiment.seed
    std::vector<std::string> overrides;      // "key=value", applied in order before --seed
    std::string out_dir;                     // default: results/<experiment name>
    OutputArgs output;                       // what is shown and recorded besides the results
    unsigned jobs = 0;                       // threads running points; 0: one per CPU
    std::optional<experiment::Shard> shard;  // run only this share of the sweep
    bool resume = false;                     // keep the points --out already holds
    bool force = false;                      // replace a folder of another experiment
};

// Prints the summary table (or results.json) on stdout, progress and host time on stderr.
// Returns the exit code (1 when the checker's monitors saw a violation); configuration
// mistakes throw config::ConfigError before any point runs.
int run_command(const RunArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
