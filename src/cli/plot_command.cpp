#include "cli/plot_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "config/error.h"
#include "report/html_report.h"
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

int report_command(const std::string& root) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) throw config::ConfigError(root, 0, "(folder)", "no such folder");
    fmt::print("{}\n", report::write_html_report(root).string());
    return 0;
}

}  // namespace ipisim::cli
