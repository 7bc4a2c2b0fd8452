#include "cli/plot_command.h"

#include <fmt/format.h>

#include "report/plot.h"

namespace ipisim::cli {

int plot_command(const std::vector<std::string>& dirs) {
    for (const std::string& dir : dirs) {
        const report::PlotOutput out = report::plot_results(dir);
        if (!out.note.empty()) {
            fmt::print(stderr, "{}\n", out.note);
            return 1;
        }
        for (const auto& f : out.files) fmt::print("{}\n", f.string());
        if (out.files.empty()) fmt::print(stderr, "{}: nothing to plot (no numeric metric)\n", dir);
    }
    return 0;
}

}  // namespace ipisim::cli
