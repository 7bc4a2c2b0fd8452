// `ipisim plot DIR...`: draws the plots of each results folder again from its results.json
// (report/plot.h). A folder without a valid results.json is an error (exit 2).
#pragma once

#include <string>
#include <vector>

namespace ipisim::cli {

int plot_command(const std::vector<std::string>& dirs);

}  // namespace ipisim::cli
