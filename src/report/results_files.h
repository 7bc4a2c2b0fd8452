// The files every run writes next to its results: results.json and results.csv. Their content
// depends only on the results (no wall clock, no host names), so equal runs give equal files.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace ipisim::report {

// {"experiment", "seed", "fingerprint", "rows": [row_json...]}
nlohmann::ordered_json results_json(const ExperimentResults& results);

// {"point", "params", "metrics", ["undefined"], ["profile"], "fingerprint", "events",
// "simulated_seconds"}: everything a row holds, so row_from_json gives it back exactly.
nlohmann::ordered_json row_json(const ResultRow& row);
// std::runtime_error naming the field when a row is not one row_json wrote.
ResultRow row_from_json(const nlohmann::ordered_json& j);

// Header "param..., metric..." (metrics in first-seen order), then one line per row.
std::string results_csv(const ExperimentResults& results);

// Writes text to path atomically (atomic_file.h), creating its directory; std::runtime_error
// naming the path on failure.
void write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ipisim::report
