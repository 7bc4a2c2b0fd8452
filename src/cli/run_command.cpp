#include "cli/run_command.h"

#include <fmt/format.h>

#include <limits>

#include "config/error.h"
#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "experiment/session.h"
#include "report/text_table.h"

namespace ipisim::cli {

namespace {

std::string swept_values(const experiment::Experiment& e, const report::ResultRow& row) {
    std::string swept;
    for (const experiment::SweepKey& s : e.sweep)
        swept += fmt::format(" {}={}", s.name, report::cell_text(row.params[s.name]));
    return swept;
}

}  // namespace

void print_undefined_metrics(const experiment::Experiment& e, const report::ResultRow& row) {
    for (const auto& [metric, reason] : row.undefined.items()) {
        fmt::print(stderr, "{}: metric {} is undefined at point {}{}: {}\n", e.name(), metric, row.point,
                   swept_values(e, row), reason.get<std::string>());
    }
}

int run_command(const RunArgs& args, const DataDirs& dirs) {
    experiment::catch_interrupts();
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
    experiment::SessionRun run{&prepared, out, experiment::FolderOptions{args.resume, args.force}, args.shard};
    experiment::SessionOptions options;
    options.jobs = args.jobs > 0 ? args.jobs : experiment::default_jobs();
    options.hooks.resumed = [&](size_t, size_t kept, const std::filesystem::path& dir) {
        fmt::print(stderr, "resuming: {} points kept from {}\n", kept, (dir / "results.json").string());
    };
    options.hooks.finished = [&](size_t, size_t point, const report::ResultRow& row) {
        fmt::print(stderr, "[{}/{}]{}\n", point + 1, e.points(), swept_values(e, row));
        print_undefined_metrics(e, row);
    };
    experiment::RunReport report;
    experiment::run_session({run}, options, [&](size_t, experiment::RunReport& r) { report = std::move(r); });

    fmt::print("{}", report.text);
    fmt::print(stderr, "{} points{}, {} events in {:.3f} s host ({:.3g} events/s); results in {}\n",
               report.results.rows.size(), args.shard ? " (shard " + args.shard->text() + ")" : "", report.events,
               report.host_seconds,
               report.host_seconds > 0 ? static_cast<double>(report.events) / report.host_seconds : 0.0, out.string());
    return 0;
}

}  // namespace ipisim::cli
