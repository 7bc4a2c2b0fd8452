// The human-readable report of a run on stdout: the parameters that do not vary, a table of the
// sweep points with their metrics (published values and relative error beside the predictions
// when [published] has a matching row), and the run fingerprint.
#pragma once

#include <string>

#include "report/published.h"
#include "report/results.h"

namespace ipisim::report {

std::string render_summary(const ExperimentResults& results, const Published& published);

}  // namespace ipisim::report
