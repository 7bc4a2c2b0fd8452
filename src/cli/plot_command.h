// Drawing results again from what their folders hold:
//   `ipisim plot DIR...`     the plots of each results folder, from its results.json (report/plot.h);
//   `ipisim report ROOT`     ROOT/index.html over every ROOT/NAME/results.json (report/html_report.h).
// A folder without a valid results.json is an error (exit 2).
#pragma once

#include <string>
#include <vector>

namespace ipisim::cli {

int plot_command(const std::vector<std::string>& dirs);
int report_command(const std::string& root);

}  // namespace ipisim::cli
