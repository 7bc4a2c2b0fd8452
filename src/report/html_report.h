// index.html in a results root: one self-contained page (no network, plots embedded as data:
// URIs) over every experiment folder under it (DIR/NAME/results.json):
//   * an overview: per experiment its machine, points, how far the predictions are from the
//     published values (mean and largest |error|), and the fingerprint;
//   * per experiment: the machine, workload and kernel used (from config.toml when it says),
//     the seed's own table with published values and errors (a pivot as an HTML table, a line
//     template as its text), the plots (plot_*.svg), every point's metrics, where CPU time
//     goes (the top profile entries as bars), the operation latencies, and the resolved
//     config.toml.
// The page depends only on the folders' files, so equal results give an equal page.
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace ipisim::report {

// The page's HTML over the experiment folders (NAME/results.json) of `results_root`, or over
// `results_root` alone when it is one (the --out of `ipisim run`). A folder whose results.json
// is broken is a config::ConfigError; a root without any gives a page saying so.
std::string render_html_report(const std::filesystem::path& results_root);

// Reads the results.json of every experiment folder the page over `results_root` would show,
// except the folders named in `replaced` (those the caller is about to write), and throws the
// config::ConfigError of the first broken one: `ipisim reproduce` writes the page after each
// experiment, so it checks the folders it did not write before it starts any work.
void check_html_report_folders(const std::filesystem::path& results_root, const std::set<std::string>& replaced);

// Writes results_root/index.html; returns its path.
std::filesystem::path write_html_report(const std::filesystem::path& results_root);

}  // namespace ipisim::report
