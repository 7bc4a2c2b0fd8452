// Two runs side by side, like `perf diff`: per point and per metric, both values, the absolute
// and the relative difference; points present in only one run are named.
//
// Points match on the parameters that vary in either run (the swept ones); parameters that
// are constant in each run but differ between them are listed first ("measure: 2 ms | 10 ms"),
// since every point then differs in them. A and B are results folders (NAME/results.json), or
// results roots (ipisim reproduce --out), whose experiment folders are compared by name.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/results.h"

namespace ipisim::report {

struct CompareOptions {
    std::vector<std::string> metrics;  // empty: every metric
};

std::string compare_results(const ExperimentResults& a, const ExperimentResults& b, const CompareOptions& options = {});

// A missing folder, a folder holding neither results.json nor experiment folders, a broken
// results.json, or two roots without a common experiment are config::ConfigErrors.
std::string compare_folders(const std::filesystem::path& a, const std::filesystem::path& b,
                            const CompareOptions& options = {});

}  // namespace ipisim::report
