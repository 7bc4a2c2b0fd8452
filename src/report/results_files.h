// The files every run writes next to its results: results.json and results.csv. Their content
// depends only on the results (no wall clock, no host names), so equal runs give equal files.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace ipisim::report {

// {"experiment", "seed", "fingerprint", "rows": [{"params", "metrics", "fingerprint"}...]}
nlohmann::ordered_json results_json(const ExperimentResults& results);

// Header "param..., metric..." (metrics in first-seen order), then one line per row.
std::string results_csv(const ExperimentResults& results);

// Writes text to path, creating its directory; std::runtime_error naming the path on failure.
void write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ipisim::report
