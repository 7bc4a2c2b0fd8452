// `ipisim sensitivity EXPERIMENT [--metric a,b] [--set key=value]... [--jobs J] [--top N]
// [--out DIR]`: screens every ranged cost of the experiment's machine one at a time
// (experiment/sensitivity.h) and prints, per point and metric (and per mechanism gain), the
// costs that move it most; writes DIR/sensitivity.json and tornado plots
// (DIR/tornado_<n>.{svg,png,gp}). DIR defaults to results/<experiment>/sensitivity.
#pragma once

#include <string>
#include <vector>

#include "cli/data_dirs.h"

namespace ipisim::cli {

struct SensitivityArgs {
    std::string experiment;
    std::string metrics;                 // "a,b": the metrics screened; empty: the default ones
    std::vector<std::string> overrides;  // --set key=value (a machine.X value set is pinned, not screened)
    unsigned jobs = 0;                   // 0: one per CPU
    size_t top = 5;                      // costs shown per quantity
    std::string out_dir;
    bool resume = false;  // keep the finished runs of --out's journal (experiment/run_journal.h)
    bool quiet = false;
};

int sensitivity_command(const SensitivityArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
