// `ipisim run FILE.toml [--seed N] [--set key=value]... [--out DIR] [--jobs N] [--shard i/N]
// [--resume] [--force]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/data_dirs.h"
#include "experiment/experiment.h"
#include "experiment/shard.h"
#include "report/results.h"

namespace ipisim::cli {

struct RunArgs {
    std::string experiment;                  // a path, or a name in the experiments directory
    std::optional<uint64_t> seed;            // overrides experiment.seed
    std::vector<std::string> overrides;      // "key=value", applied in order before --seed
    std::string out_dir;                     // default: results/<experiment name>
    unsigned jobs = 0;                       // threads running points; 0: one per CPU
    std::optional<experiment::Shard> shard;  // run only this share of the sweep
    bool resume = false;                     // keep the points --out already holds
    bool force = false;                      // replace a folder of another experiment
};

// "EXPERIMENT: metric X is undefined at point K (swept values): reason" on stderr, per
// undefined metric of the row.
void print_undefined_metrics(const experiment::Experiment& e, const report::ResultRow& row);

// Prints the summary table and fingerprint on stdout, progress and host time on stderr.
// Returns the exit code; configuration mistakes throw config::ConfigError.
int run_command(const RunArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
