// The flow `ipisim run` and `ipisim reproduce` share: run a prepared experiment, write its
// results and resolved configuration, and render what the user reads (the summary with
// published values and errors, then the seed's own table shape).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "experiment/runner.h"
#include "report/results.h"

namespace ipisim::experiment {

struct RunReport {
    report::ExperimentResults results;
    std::string text;  // summary, then the seed's shape
    uint64_t events = 0;
    double host_seconds = 0;  // wall-clock time of the runs (not of the model)
};

RunReport run_and_report(PreparedExperiment& prepared, const std::filesystem::path& out_dir,
                         const std::function<void(size_t point, const report::ResultRow&)>& on_row);

}  // namespace ipisim::experiment
