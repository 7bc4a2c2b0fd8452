#include "cli/reproduce_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>

#include "config/error.h"
#include "experiment/interrupt.h"
#include "experiment/parallel.h"
#include "experiment/results_folder.h"
#include "experiment/session.h"
#include "report/html_report.h"
#include "report/results_files.h"
#include "report/summary.h"
#include "report/text_table.h"

namespace ipisim::cli {

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

namespace {

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

// reproduce writes a folder per experiment under --out and, after each experiment, the HTML
// report over every results folder there: a folder it would not write but cannot read is an
// error now, before any work, not after the first experiment (which stopped the run there).
void check_out_dir(const std::string& out_dir, const std::vector<experiment::PreparedExperiment>& prepared) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(std::filesystem::path(out_dir) / "results.json", ec)) {
        throw config::ConfigError(
            "--out", 0, out_dir,
            "holds the results of one experiment (results.json): reproduce writes a folder per experiment under "
            "--out and a report over them; choose another --out");
    }
    std::set<std::string> written;
    for (const experiment::PreparedExperiment& p : prepared) written.insert(p.experiment.name());
    try {
        report::check_html_report_folders(out_dir, written);
    } catch (const config::ConfigError& e) {
        throw config::ConfigError(
            e.file(), e.line(), e.key(),
            fmt::format("{} (reproduce writes {}/index.html over every results folder in {}: move that folder "
                        "away, or choose another --out)",
                        e.problem(), out_dir, out_dir));
    }
}

}  // namespace

int reproduce_command(const ReproduceArgs& args, const DataDirs& dirs) {
    experiment::catch_interrupts();
    OutputArgs output = args.output;
    output.short_trace_window = true;
    output.trace_is_folder = true;
    check_output_args(output);
    check_uncertainty_args(output, false);
    std::vector<experiment::PreparedExperiment> prepared = prepare_selected(args, dirs);
    check_out_dir(args.out_dir, prepared);
    struct Done {
        std::string name;
        size_t rows;
        uint64_t events;
        double host_seconds;
        std::string fingerprint;
    };
    std::vector<Done> done;
    Console console(output.console);
    const unsigned jobs = args.jobs > 0 ? args.jobs : experiment::default_jobs();
    {
        std::vector<experiment::PreparedExperiment*> all;
        std::vector<std::filesystem::path> dirs_of_all;
        for (experiment::PreparedExperiment& p : prepared) {
            all.push_back(&p);
            dirs_of_all.push_back(std::filesystem::path(args.out_dir) / p.experiment.name());
            // The sampled machines run before the folders are opened: a refused one is refused first.
            if (output.uncertainty > 0) {
                experiment::check_results_folder(std::filesystem::path(args.out_dir) / p.experiment.name(),
                                                 p.experiment.name(),
                                                 experiment::FolderOptions{args.resume, args.force});
            }
        }
        run_uncertainty_samples(output, console, all, dirs_of_all, args.resume, jobs);
    }
    const bool json = output.format == "json";
    nlohmann::ordered_json documents = nlohmann::ordered_json::array();

    std::deque<report::TraceOptions> traces;  // one per experiment, stable while the session runs
    std::vector<experiment::SessionRun> runs;
    for (experiment::PreparedExperiment& p : prepared) {
        const std::string trace_file =
            output.trace.empty()
                ? ""
                : (std::filesystem::path(output.trace) / (p.experiment.name() + ".trace.json")).string();
        runs.push_back(session_run(output, p, std::filesystem::path(args.out_dir) / p.experiment.name(), trace_file,
                                   traces.emplace_back()));
        runs.back().folder = experiment::FolderOptions{args.resume, args.force};
    }
    experiment::SessionOptions options;
    options.jobs = jobs;
    options.hooks = console_hooks(console, runs);
    std::filesystem::path index;
    bool violations = false;
    // Experiments finish in order, one at a time, whatever --jobs: what is printed is in order.
    experiment::run_session(runs, options, [&](size_t x, experiment::RunReport& report) {
        const experiment::PreparedExperiment& p = prepared[x];
        const experiment::Experiment& e = p.experiment;
        if (json) {
            documents.push_back(nlohmann::ordered_json::parse(report.json));
        } else {
            console.out(fmt::format("==== {} — {}\n{}{}\n", e.name(), e.table.description, report.text,
                                    render_profiles(report.results)));
        }
        console.warn(report.warnings);
        if (report_violations(console, report.results, e.name())) violations = true;
        if (runs[x].trace != nullptr) {
            const report::TraceOptions& trace = *runs[x].trace;
            console.note(
                fmt::format("trace of point {} ({}) in {}\n", trace.point, point_text(p, trace.point), trace.file));
        }
        done.push_back({e.name(), report.results.rows.size(), report.events, report.host_seconds,
                        report::fingerprint_hex(report::combined_fingerprint(report.results.rows))});
        // The HTML report over every folder finished so far.
        index = report::write_html_report(args.out_dir);
    });
    if (runs.empty()) index = report::write_html_report(args.out_dir);
    if (json) {
        console.out(documents.dump(2) + "\n");
    } else {
        std::string summary = "==== summary\n";
        for (const Done& d : done) {
            summary += fmt::format("  {:<28} {:>3} rows  {:>12} events  {:>7.2f} s host  fingerprint {}\n", d.name,
                                   d.rows, d.events, d.host_seconds, d.fingerprint);
        }
        console.out(summary);
    }
    console.note(fmt::format("results in {}/, report: {}\n", args.out_dir, index.string()));
    return violations ? 1 : 0;  // the checker found a broken protocol: a failed reproduction
}

}  // namespace ipisim::cli
