// `ipisim compare A B [--metrics a,b]`: per point and metric, A's and B's values and their
// difference (report/compare.h). Bad input (a missing folder, no results, a broken
// results.json, an unknown metric name) exits 2.
#pragma once

#include <string>

namespace ipisim::cli {

struct CompareArgs {
    std::string a, b;
    std::string metrics;  // "a,b,c"; empty: every metric
};

int compare_command(const CompareArgs& args);

}  // namespace ipisim::cli
