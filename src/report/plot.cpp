#include "report/plot.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "report/results_files.h"
#include "report/subprocess.h"

namespace ipisim::report {

bool gnuplot_available() {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return false;
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / "gnuplot";
        if (::access(candidate.c_str(), X_OK) == 0) return true;
        start = end + 1;
    }
    return false;
}

namespace {

std::string shell_quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::string run_gnuplot(const std::filesystem::path& script) {
    const std::string dir = script.has_parent_path() ? script.parent_path().string() : ".";
    const std::string cmd =
        "cd " + shell_quoted(dir) + " && gnuplot " + shell_quoted(script.filename().string()) + " 2>&1";
    const CommandResult r = run_shell_command(cmd);
    if (r.status != 0) throw std::runtime_error(fmt::format("gnuplot {} failed:\n{}", script.string(), r.output));
    return r.output;
}

PlotOutput plot_results(const std::filesystem::path& dir) {
    const ExperimentResults r = read_results_json(dir / "results.json");
    PlotOutput out;
    const std::vector<PlotSpec> plans = plan_plots(r);
    if (plans.empty()) return out;
    if (!gnuplot_available()) {
        out.note = fmt::format("gnuplot not found: no plots in {} (install gnuplot-nox, then: ipisim plot {})",
                               dir.string(), dir.string());
        return out;
    }
    for (const PlotSpec& spec : plans) {
        const std::filesystem::path svg = dir / (spec.stem + ".svg");
        const std::filesystem::path png = dir / (spec.stem + ".png");
        const std::filesystem::path gp = dir / (spec.stem + ".gp");
        // Relative names in the script, so it moves with the results folder.
        write_text_file(gp, gnuplot_script(r, spec, svg.filename().string(), png.filename().string()));
        const std::string said = run_gnuplot(gp);
        if (!said.empty()) out.warnings += fmt::format("gnuplot {}:\n{}", gp.string(), said);
        out.files.push_back(svg);
        out.files.push_back(png);
    }
    return out;
}

bool print_plot_results(const std::filesystem::path& dir) {
    try {
        const PlotOutput out = plot_results(dir);
        if (!out.note.empty()) fmt::print(stderr, "ipisim: warning: {}\n", out.note);
        if (!out.warnings.empty()) fmt::print(stderr, "ipisim: warning: {}", out.warnings);
        return out.note.empty() && out.warnings.empty();
    } catch (const std::exception& e) {
        fmt::print(stderr, "ipisim: warning: no plots: {}\n", e.what());
        return false;
    }
}

}  // namespace ipisim::report
