// `ipisim reproduce [--out DIR] [--only NAME]... [--jobs N] [--resume] [--force] [--trace DIR]
// [output flags]`: runs every seed experiment
// (experiments/seed*.toml) with its default machine and prints, per experiment, the predicted
// table with published values and the error per cell where the seed publishes them, and a
// perf-report-like profile of where CPU time goes. Results of each go to DIR/<name>/, with its
// plots; DIR/index.html is the HTML report over all of them. With --trace TDIR, TDIR/<name>.trace.json
// is a trace of each experiment's last point (or --trace-point N), over --trace-window
// (default 2ms..2.2ms).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/data_dirs.h"
#include "cli/run_output.h"

namespace ipisim::cli {

struct ReproduceArgs {
    std::string out_dir = "results";
    std::vector<std::string> only;  // experiment names; empty: every seed experiment
    OutputArgs output;
    unsigned jobs = 0;    // threads running points (of every experiment); 0: one per CPU
    bool resume = false;  // keep the points each folder holds
    bool force = false;   // replace results of other experiments
};

int reproduce_command(const ReproduceArgs& args, const DataDirs& dirs);

// The seed experiments of `dir`: its seed*.toml files, sorted by name (empty when none or no dir).
std::vector<std::filesystem::path> seed_experiments(const std::string& dir);

}  // namespace ipisim::cli
