#include "cli/reproduce_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli/experiment.h"
#include "cli/run_experiment.h"
#include "config/error.h"
#include "report/html_report.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace ipisim::cli {

namespace {

std::vector<std::filesystem::path> seed_experiments(const std::string& dir) {
    std::vector<std::filesystem::path> out;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string stem = entry.path().stem().string();
        if (entry.path().extension() == ".toml" && stem.rfind("seed", 0) == 0) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The profile of the sweep point that had the most busy CPU entries: one line per function.
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

}  // namespace

int reproduce_command(const ReproduceArgs& args, const DataDirs& dirs) {
    std::vector<std::filesystem::path> files = seed_experiments(dirs.experiments);
    if (files.empty()) {
        throw config::ConfigError(dirs.experiments, 0, "(experiments)", "no seed*.toml experiment found");
    }
    struct Done {
        std::string name;
        size_t rows;
        uint64_t events;
        double host_seconds;
        std::string fingerprint;
    };
    std::vector<Done> done;
    for (const auto& file : files) {
        const Experiment experiment = load_experiment(file.string(), {});
        if (!args.only.empty() && std::find(args.only.begin(), args.only.end(), experiment.name) == args.only.end()) {
            continue;
        }
        fmt::print("==== {} — {}\n", experiment.name, experiment.description);
        const auto start = std::chrono::steady_clock::now();
        RunOptions options;
        options.machines_dir = dirs.machines;
        options.on_row = [&](size_t point, const report::ResultRow&) {
            fmt::print(stderr, "  [{}/{}] {}\n", point + 1, experiment.points(), experiment.name);
        };
        const report::ExperimentResults results = run_experiment(experiment, options);
        const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        write_experiment_outputs(experiment, results, std::filesystem::path(args.out_dir) / experiment.name);
        fmt::print("{}", report::render_summary(results, experiment.published));
        fmt::print("{}", report::render_seed_shape(experiment.shape, results, experiment.published));
        fmt::print("{}\n", render_profiles(results));
        uint64_t events = 0;
        for (const auto& r : results.rows) events += r.events;
        done.push_back({experiment.name, results.rows.size(), events, host,
                        report::fingerprint_hex(report::combined_fingerprint(results.rows))});
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
