// The files every run writes next to its results: results.json and results.csv. Their content
// depends only on the results (no wall clock, no host names), so equal runs give equal files.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace ipisim::report {

// {"experiment", "description", "machine", "seed", "fingerprint", "swept", "report",
//  "published_source", "rows": [{"params", "metrics", "metrics_interval", "published",
//  "latency", "profile", "fingerprint"}...]}; empty optional members are left out.
nlohmann::ordered_json results_json(const ExperimentResults& results);

// The inverse (events and simulated time are not kept). A missing file, bad JSON or a member
// of the wrong type is a config::ConfigError naming the file and the member ("rows[2].metrics").
ExperimentResults read_results_json(const std::filesystem::path& path);

// Header "param..., metric..." (metrics in first-seen order), then one line per row.
std::string results_csv(const ExperimentResults& results);

// Writes text to path, creating its directory; std::runtime_error naming the path on failure.
void write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ipisim::report
