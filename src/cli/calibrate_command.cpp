#include "cli/calibrate_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "cli/console.h"
#include "cli/output_paths.h"
#include "config/error.h"
#include "experiment/calibrate.h"
#include "experiment/parallel.h"
#include "hw/machine.h"
#include "report/atomic_file.h"

namespace ipisim::cli {

namespace {

// MACHINE: a path to a machine file, else a name in the machines folder (an unknown name is an
// error listing the machines there).
std::string machine_path(const std::string& machine, const DataDirs& dirs) {
    std::error_code ec;
    if (machine.find('/') != std::string::npos || std::filesystem::path(machine).extension() == ".toml") {
        return machine;
    }
    const std::filesystem::path p = std::filesystem::path(dirs.machines) / (machine + ".toml");
    if (!std::filesystem::is_regular_file(p, ec)) hw::load_machine_by_name(dirs.machines, machine);  // throws
    return p.string();
}

// --params a,b: the names, none empty.
std::vector<std::string> param_list(const std::string& text) {
    std::vector<std::string> out;
    if (text.empty()) return out;
    size_t start = 0;
    for (;;) {
        const size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out.back().empty()) throw config::ConfigError("--params", 0, text, "an empty cost name");
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

}  // namespace

int calibrate_command(const CalibrateArgs& args, const DataDirs& dirs) {
    const std::string machine = machine_path(args.machine, dirs);
    const experiment::TargetsFile targets = experiment::load_targets(args.targets);
    const std::vector<std::string> params = param_list(args.params);
    const experiment::CalibrationSetup setup =
        experiment::prepare_calibration(machine, targets, params, dirs.experiments);
    if (args.interval_only) {
        // An interval describes a fit: a value that was not fitted gets one by being fitted.
        for (const experiment::RangedCost& p : setup.params) {
            if (p.cost->provenance.mark != config::Mark::F) {
                throw config::ConfigError(
                    "--interval-only", 0, p.cost->key,
                    fmt::format("is marked {}, not F: only a fitted value has a fit interval (fit it: calibrate "
                                "without --interval-only)",
                                config::to_string(p.cost->provenance.mark)));
            }
        }
    }
    const std::string out =
        args.out.empty() ? std::filesystem::path(machine).stem().string() + "_calibrated.toml" : args.out;
    check_output_file("--out", out);
    Console console(ConsoleOptions{args.quiet, ProgressMode::never});
    experiment::CalibrateOptions options;
    options.jobs = args.jobs > 0 ? args.jobs : experiment::default_jobs();
    options.max_evaluations = args.max_evaluations;
    options.optimize = !args.interval_only;
    options.jacobian_step = args.step;
    if (args.interval_only) {
        console.note(
            fmt::format("{}: the intervals {} target(s) of {} experiment(s) give {} cost(s) at their "
                        "present values (no fit), {} job(s)\n",
                        machine, targets.targets.size(), setup.experiments.size(), setup.params.size(), options.jobs));
    } else {
        console.note(
            fmt::format("{}: fitting {} cost(s) to {} target(s) of {} experiment(s) with NLopt BOBYQA, at most "
                        "{} evaluations, {} job(s)\n",
                        machine, setup.params.size(), targets.targets.size(), setup.experiments.size(),
                        options.max_evaluations, options.jobs));
    }
    const auto start = std::chrono::steady_clock::now();  // host time, for the note only
    const experiment::CalibrationResult result = experiment::calibrate(setup, options);
    console.out(experiment::calibration_text(setup, result));
    report::write_file_atomically(out, experiment::fitted_machine_text(setup, result));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    console.note(fmt::format("{:.1f} s host; the fitted machine is {}\n", seconds, out));
    return 0;
}

}  // namespace ipisim::cli
