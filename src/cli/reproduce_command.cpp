#include "cli/reproduce_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "config/error.h"
#include "experiment/session.h"
#include "report/html_report.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace ipisim::cli {

namespace {

std::vector<std::filesystem::path> seed_experiments(const std::string& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string stem = entry.path().stem().string();
        if (entry.path().extension() == ".toml" && stem.rfind("seed", 0) == 0) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The profile of every sweep point that has one: one line per point, one entry per function.
std::string render_profiles(const report::ExperimentResults& results) {
    std::string s;
    for (const report::ResultRow& row : results.rows) {
        if (row.profile.empty()) continue;
        std::string params;
        for (const std::string& key : results.swept) {
            params += fmt::format("{}{}={}", params.empty() ? "" : ", ", key, report::cell_text(row.params[key]));
        }
        s += fmt::format("  profile{}{}:", params.empty() ? "" : " at ", params);
        for (const auto& [name, share] : row.profile.items()) {
            s += fmt::format("  {:.1f}% {}", share.get<double>() * 100.0, name);
        }
        s += "\n";
    }
    return s;
}

// The seed experiments to run, every one loaded and prepared (machines loaded, every point
// checked) before the first runs. An --only name that matches none is an error.
std::vector<experiment::PreparedExperiment> prepare_selected(const ReproduceArgs& args, const DataDirs& dirs) {
    const std::vector<std::filesystem::path> files = seed_experiments(dirs.experiments);
    if (files.empty()) {
        throw config::ConfigError(dirs.experiments, 0, "(experiments)", "no seed*.toml experiment found");
    }
    std::vector<experiment::Experiment> loaded;
    for (const auto& file : files) loaded.push_back(experiment::load_experiment(file.string(), {}));
    for (const std::string& name : args.only) {
        const bool known = std::any_of(loaded.begin(), loaded.end(),
                                       [&](const experiment::Experiment& e) { return e.name() == name; });
        if (!known) {
            std::string names;
            for (const auto& e : loaded) names += (names.empty() ? "" : ", ") + e.name();
            throw config::ConfigError(
                "--only", 0, name,
                fmt::format("no seed experiment of that name in {} (there are: {})", dirs.experiments, names));
        }
    }
    std::vector<experiment::PreparedExperiment> out;
    for (const experiment::Experiment& e : loaded) {
        if (!args.only.empty() && std::find(args.only.begin(), args.only.end(), e.name()) == args.only.end()) continue;
        out.push_back(experiment::prepare_experiment(e, dirs.machines));
    }
    return out;
}

}  // namespace

int reproduce_command(const ReproduceArgs& args, const DataDirs& dirs) {
    std::vector<experiment::PreparedExperiment> prepared = prepare_selected(args, dirs);
    struct Done {
        std::string name;
        size_t rows;
        uint64_t events;
        double host_seconds;
        std::string fingerprint;
    };
    std::vector<Done> done;
    for (experiment::PreparedExperiment& p : prepared) {
        const experiment::Experiment& e = p.experiment;
        fmt::print("==== {} — {}\n", e.name(), e.table.description);
        experiment::SessionOptions options;
        options.hooks.on_row = [&](size_t point, const report::ResultRow&) {
            fmt::print(stderr, "  [{}/{}] {}\n", point + 1, e.points(), e.name());
        };
        const experiment::RunReport report =
            experiment::run_and_report(p, std::filesystem::path(args.out_dir) / e.name(), options);
        fmt::print("{}", report.text);
        fmt::print(stderr, "{}", report.warnings);
        fmt::print("{}\n", render_profiles(report.results));
        done.push_back({e.name(), report.results.rows.size(), report.events, report.host_seconds,
                        report::fingerprint_hex(report::combined_fingerprint(report.results.rows))});
    }
    fmt::print("==== summary\n");
    for (const Done& d : done) {
        fmt::print("  {:<28} {:>3} rows  {:>12} events  {:>7.2f} s host  fingerprint {}\n", d.name, d.rows, d.events,
                   d.host_seconds, d.fingerprint);
    }
    fmt::print(stderr, "report: {}\n", report::write_html_report(args.out_dir).string());  // index.html
    return 0;
}

}  // namespace ipisim::cli
