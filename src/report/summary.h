// The human-readable report of a run on stdout: the experiment, its machine and the
// parameters that do not vary, a table of the sweep points with their metrics (published
// values and relative error beside the predictions when [published] has a matching row), and
// the run fingerprint.
//
// The table is narrow by default: the metrics that have published values first, then the
// others in the workload's order while the table fits `width` characters; a line names the
// metrics left out. `metrics` chooses the columns instead (ipisim run --metrics a,b,c).
// Numbers use number_text (1.05M, 933k, 0.0316), shares are percentages. With `latency`, a
// table per timed operation follows (count, p50, p90, p99, max in ns; report/latency.h).
#pragma once

#include <string>
#include <vector>

#include "report/published.h"
#include "report/results.h"

namespace ipisim::report {

struct SummaryOptions {
    std::vector<std::string> metrics;  // empty: the narrow default
    size_t width = 100;                // the default table's width budget, in characters
    bool latency = false;
};

std::string render_summary(const ExperimentResults& results, const Published& published,
                           const SummaryOptions& options = {});

// "a,b,c" -> {"a", "b", "c"} (blanks around names are dropped; empty names are an error).
std::vector<std::string> parse_metric_list(const std::string& text);
// Every name must be a metric of some row: otherwise a config::ConfigError on "--metrics"
// listing the metrics there are.
void check_metrics(const ExperimentResults& results, const std::vector<std::string>& names);

}  // namespace ipisim::report
