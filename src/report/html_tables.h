// The HTML tables of the report page (report/html_report.h), one function per table.
#pragma once

#include <string>

#include "report/results.h"

namespace ipisim::report {

// The seed's own table ("report" in results.json): a pivot as an HTML table whose cells hold
// the prediction, the published value and the error; a line template as its text.
std::string html_seed_table(const ExperimentResults& results);
// Every point: swept parameters, metrics, and published value and error beside each metric
// that has one.
std::string html_points_table(const ExperimentResults& results);
// Per point, the CPU-time profile as a stacked bar with its top entries named.
std::string html_profile_table(const ExperimentResults& results);
// Per point and operation: count, p50, p99, max (ns). Empty when no row has latencies.
std::string html_latency_table(const ExperimentResults& results);

// The relative errors of every published cell (for the overview).
struct ErrorSummary {
    size_t cells = 0;
    double mean_abs = 0;  // mean |error|, as a fraction
    double max_abs = 0;
};
ErrorSummary error_summary(const ExperimentResults& results);

// CSS class of an error's size: "good" (<= 10%), "fair" (<= 30%), "poor".
const char* error_class(double relative_error);

}  // namespace ipisim::report
