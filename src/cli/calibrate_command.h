// `ipisim calibrate MACHINE --targets FILE [--params a,b] [--out FILE] [--jobs J]
// [--max-evaluations N | --interval-only]`: fits costs of MACHINE (marked A or F, with ranges)
// to the measured
// microbenchmark values of the targets file (experiment/targets.h, experiment/calibrate.h),
// prints per target the prediction and residual before and after and the fitted values with
// their ranges and 95% intervals, and writes the machine with the fitted values marked F to
// --out (default MACHINE_calibrated.toml in the current folder). --interval-only moves no value:
// it gives the costs as they are the intervals the targets allow them.
#pragma once

#include <string>

#include "cli/data_dirs.h"

namespace ipisim::cli {

struct CalibrateArgs {
    std::string machine;  // a name in the machines folder, or a path to a machine file
    std::string targets;
    std::string params;  // "a,b": overrides the targets file's params
    std::string out;
    unsigned jobs = 0;  // 0: one per CPU
    int max_evaluations = 200;
    bool interval_only = false;  // no fit: the costs' intervals at their present values
    double step = 0.02;          // the intervals' central differences, fraction of each range
    bool quiet = false;
};

int calibrate_command(const CalibrateArgs& args, const DataDirs& dirs);

}  // namespace ipisim::cli
