// The files every run writes next to its results: results.json and results.csv. Their content
// depends only on the results (no wall clock, no host names), so equal runs give equal files.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace ipisim::report {

// {"experiment", "description", "ipisim_version", "git_commit", "machine",
//  "machine_description", "machine_hash", "kernel", "seed", "fingerprint", "swept", "report",
//  "published_source", "published_note", "uncertainty", "rows": [row_json...]}; empty optional
// members are left out. A results folder adds its commit record (experiment/results_folder.h).
nlohmann::ordered_json results_json(const ExperimentResults& results);

// {"point", "params", "metrics", ["undefined"], ["metrics_interval"], ["metrics_median"],
// ["published"], ["latency"], ["profile"], ["check"], "fingerprint", "events", "simulated_seconds"}:
// everything a row holds (optional members left out when empty), so row_from_json gives it back
// exactly.
nlohmann::ordered_json row_json(const ResultRow& row);
// The inverse, strict: every member row_json always writes must be there (what --resume and
// `ipisim merge` read). std::runtime_error naming the member otherwise ("a row has no \"point\"").
ResultRow row_from_json(const nlohmann::ordered_json& j);

// The inverse of results_json, tolerant of older files: a row without "point" is the point of
// its index, one without "fingerprint", "events" or "simulated_seconds" has 0; members it does
// not know (a results folder's commit record) are ignored. A missing file, bad JSON or a member
// of the wrong type is a config::ConfigError naming the file and the member ("rows[2].metrics").
ExperimentResults read_results_json(const std::filesystem::path& path);

// Header "param..., metric..." (metrics in first-seen order), then one line per row.
std::string results_csv(const ExperimentResults& results);

// Writes text to path atomically (atomic_file.h), creating its directory; std::runtime_error
// naming the path on failure.
void write_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ipisim::report
