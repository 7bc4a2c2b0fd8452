#include "cli/run_command.h"

#include <fmt/format.h>

#include <limits>

#include "config/error.h"
#include "experiment/session.h"
#include "report/text_table.h"

namespace ipisim::cli {

int run_command(const RunArgs& args, const DataDirs& dirs) {
    std::vector<std::string> overrides = args.overrides;
    if (args.seed) {
        if (*args.seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            throw config::ConfigError("--seed", 0, "experiment.seed",
                                      fmt::format("must be at most {}", std::numeric_limits<int64_t>::max()));
        }
        overrides.push_back(fmt::format("experiment.seed={}", *args.seed));
    }
    const experiment::Experiment e = experiment::load_experiment(resolve_experiment(args.experiment, dirs), overrides);
    experiment::PreparedExperiment prepared = experiment::prepare_experiment(e, dirs.machines);

    const std::filesystem::path out =
        args.out_dir.empty() ? std::filesystem::path("results") / e.name() : std::filesystem::path(args.out_dir);
    experiment::SessionOptions options;
    options.hooks.on_row = [&](size_t point, const report::ResultRow& row) {
        std::string swept;
        for (const experiment::SweepKey& s : e.sweep) {
            swept += fmt::format(" {}={}", s.name, report::cell_text(row.params[s.name]));
        }
        fmt::print(stderr, "[{}/{}]{}\n", point + 1, e.points(), swept);
    };
    const experiment::RunReport report = experiment::run_and_report(prepared, out, options);

    fmt::print("{}", report.text);
    fmt::print(stderr, "{}", report.warnings);
    fmt::print(stderr, "{} points, {} events in {:.3f} s host ({:.3g} events/s); results in {}\n",
               report.results.rows.size(), report.events, report.host_seconds,
               report.host_seconds > 0 ? static_cast<double>(report.events) / report.host_seconds : 0.0, out.string());
    // The checker's monitors watched every point: a violation is a failed run (docs/checker.md).
    int rc = 0;
    for (size_t i = 0; i < report.results.rows.size(); ++i) {
        const nlohmann::ordered_json& c = report.results.rows[i].check;
        if (!c.contains("first")) continue;
        fmt::print(stderr, "ipisim: check: point {}: {} violation(s); first: {} on cpu{}: {}\n", i + 1,
                   c["violations"].get<uint64_t>(), c["first"]["kind"].get<std::string>(),
                   c["first"]["cpu"].get<uint32_t>(), c["first"]["diagnosis"].get<std::string>());
        rc = 1;
    }
    return rc;
}

}  // namespace ipisim::cli
