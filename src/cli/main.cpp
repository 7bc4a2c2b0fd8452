// ipisim: the command line. Each subcommand is a function in its own file; this file only
// parses arguments and turns errors into messages and exit codes.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>

#include "cli/calibrate_command.h"
#include "cli/check_command.h"
#include "cli/compare_command.h"
#include "cli/data_dirs.h"
#include "cli/list_command.h"
#include "cli/machine_command.h"
#include "cli/merge_command.h"
#include "cli/params_command.h"
#include "cli/plot_command.h"
#include "cli/probe_command.h"
#include "cli/reproduce_command.h"
#include "cli/run_command.h"
#include "cli/sensitivity_command.h"
#include "cli/validate_command.h"
#include "config/error.h"
#include "config/suggest.h"
#include "experiment/build_info.h"
#include "experiment/shard.h"

namespace {

using namespace ipisim;

// Configuration mistakes print exactly "FILE:LINE: key: what is wrong" and exit 2.
int guarded(const std::function<int()>& command) {
    try {
        return command();
    } catch (const config::ConfigError& e) {
        fmt::print(stderr, "{}\n", e.what());
        return config::kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "ipisim: error: {}\n", e.what());
        return 1;
    }
}

// A path or number flag given an empty value (`--out ''`) is a usage error (exit 2, "--out: ..."),
// never read as "not given" or as 0.
const CLI::Validator not_empty(
    [](const std::string& value) { return value.empty() ? std::string("must not be empty") : std::string(); }, "", "");

bool all_digits(const std::string& value) {
    return !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
}

// A count of at least 1 (--jobs, --top, check --seeds). CLI11's PositiveNumber says "Value 0 not
// in range 0 to 1.8e308" for 0, and an unchecked --jobs 0 would fall back to the default silently.
const CLI::Validator at_least_one(
    [](const std::string& value) {
        if (!all_digits(value)) return "expected a whole number of at least 1, got \"" + value + "\"";
        return value.find_first_not_of('0') == std::string::npos ? std::string("must be at least 1, got 0")
                                                                 : std::string();
    },
    "N>=1", "");

// A whole number from 0 (a seed, an index) in plain decimal digits. CLI11 converts into an
// unsigned option with strtoull, which takes "-1" as 2^64-1: `check --seeds -1` then ran seeds
// without end, `--first-seed -1` checked seed 18446744073709551615, and hex "0x10" was 16.
const CLI::Validator whole_number(
    [](const std::string& value) {
        return all_digits(value) ? std::string() : "expected a whole number (0, 1, 2, ...), got \"" + value + "\"";
    },
    "N>=0", "");

// A fraction in (0, 0.25] written as a plain decimal (calibrate --step): CLI11's Range lets "nan"
// through, since no comparison with NaN fails.
const CLI::Validator step_fraction(
    [](const std::string& value) {
        double v = 0;
        size_t used = 0;
        try {
            v = std::stod(value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != value.size() || !std::isfinite(v) || v < 0.001 || v > 0.25) {
            return "expected a fraction of each range from 0.001 to 0.25, got \"" + value + "\"";
        }
        return std::string();
    },
    "0.001-0.25", "");

// The output flags of `run` and `reproduce` (cli/run_output.h); `trace_what` says what --trace names.
void add_output_flags(CLI::App* cmd, cli::OutputArgs& out, const std::string& trace_what) {
    cmd->add_option("--metrics", out.metrics, "the table's metric columns: a,b,c (default: a narrow selection)");
    cmd->add_flag("--latency", out.latency, "latency tables (count, p50, p90, p99, max) after the metrics");
    cmd->add_option("--format", out.format, "stdout: text (tables) or json (results.json)")->capture_default_str();
    cmd->add_flag("-q,--quiet", out.console.quiet, "no progress or notes on stderr (warnings and errors still)");
    cmd->add_flag_callback(
        "--progress", [&out] { out.console.progress = cli::ProgressMode::always; },
        "progress on stderr even when it is not a terminal (a line per point)");
    cmd->add_option("--trace", out.trace, trace_what)->check(not_empty);
    cmd->add_option("--trace-window", out.trace_window, "the traced time span, e.g. 2ms..2.2ms");
    cmd->add_option("--trace-point", out.trace_point, "the traced sweep point, from 0 (default: the last)")
        ->check(whole_number);
    cmd->add_option("--uncertainty", out.uncertainty,
                    "also run every point on N machines sampled over the ranged costs (Latin hypercube) and report "
                    "each metric's median and 5-95% interval (docs/uncertainty.md)")
        ->check(CLI::Range(size_t{2}, size_t{100000}));
}

// The first argument that is not an option (nor the value of --machines / --experiments): the
// subcommand. An unknown one is an error with the closest known names, before CLI11's
// "A subcommand is required".
std::string unknown_subcommand(CLI::App& app, int argc, char** argv) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--machines" || arg == "--experiments") {
            ++i;
            continue;
        }
        if (arg.empty() || arg[0] == '-') continue;
        if (std::find(names.begin(), names.end(), arg) != names.end()) return "";
        return fmt::format("ipisim: unknown command \"{}\"{}; the commands are: {}", arg,
                           config::did_you_mean(arg, names), fmt::join(names, ", "));
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "ipisim: deterministic simulation of cross-CPU communication (IPIs, "
        "smp_call_function*, TLB shootdown) on modeled many-core machines"};
    app.set_version_flag("--version",
                         fmt::format("ipisim {} (git {})", experiment::ipisim_version(), experiment::git_commit()));
    app.require_subcommand(1);
    app.fallthrough();

    cli::DataDirs dirs = cli::default_data_dirs();
    app.add_option("--machines", dirs.machines, "directory of machine files")->capture_default_str()->check(not_empty);
    app.add_option("--experiments", dirs.experiments, "directory of experiment files")
        ->capture_default_str()
        ->check(not_empty);

    std::function<int()> command;

    CLI::App* list = app.add_subcommand("list", "machines, experiments and components");
    std::string params_name;
    CLI::Option* params_opt = list->add_option("--params", params_name,
                                               "the declared parameters of NAME (kernel, a workload, ...; all "
                                               "without NAME)")
                                  ->expected(0, 1);
    list->callback([&] {
        command = [&] {
            fmt::print("{}", params_opt->count() > 0 ? cli::render_params(params_name) : cli::render_list(dirs));
            return 0;
        };
    });

    cli::RunArgs run_args;
    uint64_t seed = 0;
    CLI::App* run = app.add_subcommand("run", "run an experiment file");
    run->add_option("experiment", run_args.experiment, "experiment file (or name in the experiments directory)")
        ->required();
    CLI::Option* seed_opt = run->add_option("--seed", seed, "override experiment.seed")->check(not_empty);
    run->add_option("--set", run_args.overrides, "override a value: key=value (repeatable)")->allow_extra_args(false);
    run->add_option("--out", run_args.out_dir, "output directory (default: results/<experiment name>)")
        ->check(not_empty);
    add_output_flags(run, run_args.output, "write a Chrome/Perfetto trace of one point to this file");
    run->add_option("--jobs,-j", run_args.jobs, "threads running sweep points (default: one per CPU)")
        ->check(at_least_one);
    std::string shard_text;
    run->add_option("--shard", shard_text,
                    "run only shard i of N of the sweep (point k is in shard k mod N); "
                    "ipisim merge combines the shards")
        ->check(CLI::Validator(
            [](std::string& text) {
                std::string problem;
                return experiment::parse_shard(text, &problem) ? std::string() : problem;
            },
            "i/N"));
    run->add_flag("--resume", run_args.resume,
                  "keep the points --out already holds (same parameters and "
                  "configuration) and run the rest");
    run->add_flag("--force", run_args.force, "replace results of another experiment in --out");
    run->callback([&] {
        if (seed_opt->count() > 0) run_args.seed = seed;
        std::string problem;
        if (!shard_text.empty()) run_args.shard = experiment::parse_shard(shard_text, &problem);
        command = [&] { return cli::run_command(run_args, dirs); };
    });

    cli::ReproduceArgs reproduce_args;
    CLI::App* reproduce = app.add_subcommand("reproduce", "run every seed experiment (experiments/seed*.toml)");
    reproduce->add_option("--out", reproduce_args.out_dir, "output directory (one folder per experiment)")
        ->capture_default_str()
        ->check(not_empty);
    reproduce->add_option("--only", reproduce_args.only, "run only these experiment names (repeatable)");
    add_output_flags(reproduce, reproduce_args.output,
                     "write DIR/<experiment>.trace.json, a Chrome/Perfetto trace of each experiment's last point "
                     "(window default: 200 us after the warm-up)");
    reproduce
        ->add_option("--jobs,-j", reproduce_args.jobs,
                     "threads running the points of every experiment (default: one per CPU)")
        ->check(at_least_one);
    reproduce->add_flag("--resume", reproduce_args.resume,
                        "keep the points each experiment's folder already holds and run the rest");
    reproduce->add_flag("--force", reproduce_args.force, "replace results of other experiments in --out");
    reproduce->callback([&] { command = [&] { return cli::reproduce_command(reproduce_args, dirs); }; });

    std::vector<std::string> plot_dirs;
    CLI::App* plot = app.add_subcommand("plot", "draw a results folder's plots again (SVG, PNG) from results.json");
    plot->add_option("dir", plot_dirs, "results folder(s) holding results.json")->required();
    plot->callback([&] { command = [&] { return cli::plot_command(plot_dirs); }; });

    cli::CompareArgs compare_args;
    CLI::App* compare = app.add_subcommand("compare", "per-point, per-metric differences between two results folders");
    compare->add_option("a", compare_args.a, "results folder (or root) A")->required();
    compare->add_option("b", compare_args.b, "results folder (or root) B")->required();
    compare->add_option("--metrics", compare_args.metrics, "only these metrics (comma-separated)");
    compare->callback([&] { command = [&] { return cli::compare_command(compare_args); }; });

    std::string report_root;
    CLI::App* report = app.add_subcommand("report", "write ROOT/index.html over the results folders under ROOT");
    report->add_option("root", report_root, "results root (ipisim reproduce --out)")->required();
    report->callback([&] { command = [&] { return cli::report_command(report_root); }; });

    cli::MergeArgs merge_args;
    CLI::App* merge = app.add_subcommand("merge", "combine the shard folders of one sweep (run --shard i/N)");
    merge->add_option("shards", merge_args.shards, "the shard folders")->required();
    merge->add_option("--out", merge_args.out_dir, "output directory of the combined results")
        ->required()
        ->check(not_empty);
    merge->add_flag("--force", merge_args.force, "replace results of another experiment in --out");
    merge->callback([&] { command = [&] { return cli::merge_command(merge_args, dirs); }; });

    std::string xml_path;
    std::string out_path;
    std::string machine_name;
    CLI::App* machine = app.add_subcommand("machine", "machine files");
    machine->require_subcommand(1);
    CLI::App* show = machine->add_subcommand("show", "topology tree, distances and every cost with its provenance");
    show->add_option("machine", machine_name, "machine name (or path to a machine file)")->required();
    show->callback([&] { command = [&] { return cli::machine_show_command(machine_name, dirs); }; });
    CLI::App* import_cmd = machine->add_subcommand("import", "machine-file skeleton from hwloc XML (lstopo --of xml)");
    import_cmd->add_option("xml", xml_path, "hwloc XML file")->required();
    import_cmd->add_option("-o,--output", out_path, "output TOML file (default: stdout)")->check(not_empty);
    import_cmd->callback([&] { command = [&] { return cli::machine_import_command(xml_path, out_path); }; });

    cli::ProbeArgs probe_args;
    probe_args.command = cli::command_line(argc, argv);
    CLI::App* probe = app.add_subcommand("probe", "measure this host and write a machine file (host.toml)");
    probe->add_flag("--quick", probe_args.quick, "fewer samples (well under a minute)");
    probe->add_flag("!--no-realtime", probe_args.realtime, "measuring threads at normal priority, not SCHED_FIFO");
    probe->add_option("--out", probe_args.out_dir, "output directory")->capture_default_str()->check(not_empty);
    probe->callback([&] { command = [&] { return cli::probe_command(probe_args); }; });

    cli::ValidateHostArgs validate_args;
    CLI::App* validate = app.add_subcommand("validate", "check the model against this host");
    validate->require_subcommand(1);
    CLI::App* validate_host =
        validate->add_subcommand("host", "native tlb_flush2 vs the model on the probed host.toml");
    validate_host->add_option("--host", validate_args.host, "machine file written by ipisim probe")
        ->capture_default_str();
    validate_host->add_option("--tasks", validate_args.tasks, "task counts (default 1, 2, 4, ..., all CPUs)")
        ->delimiter(',')
        ->check(at_least_one);
    validate_host->add_flag("--quick", validate_args.quick, "short windows");
    validate_host->add_flag("!--no-realtime", validate_args.realtime, "tasks at normal priority, not SCHED_FIFO");
    validate_host->add_option("--seed", validate_args.seed, "the model's seed")
        ->capture_default_str()
        ->check(whole_number);
    validate_host->callback([&] { command = [&] { return cli::validate_host_command(validate_args); }; });

    cli::CheckArgs check_args;
    CLI::App* check = app.add_subcommand("check", "explore a flush protocol's schedules with the correctness monitors");
    check->add_option("--protocol", check_args.protocol, "the tlb_flush protocol (or a checker mutant)");
    check->add_option("--machine", check_args.machine, "machine (default: the first toy machine it supports)");
    check->add_option("--seeds", check_args.seeds, "number of seeds")->capture_default_str()->check(at_least_one);
    check->add_option("--first-seed", check_args.first_seed, "first seed")->capture_default_str()->check(whole_number);
    check->add_option("--jobs,-j", check_args.jobs, "parallel runs (default: every hardware thread)")
        ->check(at_least_one);
    check->add_option("--ops", check_args.ops, "operations per CPU")->capture_default_str()->check(at_least_one);
    check->add_flag("--no-perturb", check_args.no_perturb, "no timing perturbation");
    check
        ->add_option("--store-buffer", check_args.store_buffer,
                     "store-buffer entries per CPU in place of the machine's (toy machines have none): stores "
                     "then wait to become visible while later loads go ahead, so a missing barrier shows")
        ->check(CLI::Range(int64_t{0}, int64_t{512}));
    check->add_option("--replay", check_args.replay, "rerun the run a replay file records");
    check->add_option("--out", check_args.out_dir, "where a violation's log and replay file go")
        ->capture_default_str()
        ->check(not_empty);
    check->callback([&] { command = [&] { return cli::check_command(check_args, dirs); }; });

    cli::SensitivityArgs sens_args;
    CLI::App* sens = app.add_subcommand(
        "sensitivity", "which ranged machine costs move an experiment's predictions (one at a time, low/high)");
    sens->add_option("experiment", sens_args.experiment, "experiment file (or name in the experiments directory)")
        ->required();
    sens->add_option("--metric", sens_args.metrics,
                     "metrics to screen: a,b (default: the seed table's and the published ones)");
    sens->add_option("--set", sens_args.overrides, "override a value: key=value (a set machine cost is not screened)")
        ->allow_extra_args(false);
    sens->add_option("--jobs,-j", sens_args.jobs, "threads running points (default: one per CPU)")->check(at_least_one);
    sens->add_option("--top", sens_args.top,
                     "costs per metric in the printed table (the tornado plots show at least 10)")
        ->capture_default_str()
        ->check(at_least_one);
    sens->add_option("--out", sens_args.out_dir, "output directory (default: results/<experiment>/sensitivity)");
    sens->add_flag("--resume", sens_args.resume,
                   "keep the runs --out's sensitivity_runs.jsonl holds (the same screen: experiment, configuration, "
                   "ipisim) and run the rest");
    sens->add_flag("-q,--quiet", sens_args.quiet, "no notes on stderr");
    sens->callback([&] { command = [&] { return cli::sensitivity_command(sens_args, dirs); }; });

    cli::CalibrateArgs cal_args;
    CLI::App* cal = app.add_subcommand(
        "calibrate", "fit a machine's assumed (A/F) costs to measured microbenchmark targets (NLopt BOBYQA)");
    cal->add_option("machine", cal_args.machine, "machine name (or path to a machine file)")->required();
    cal->add_option("--targets", cal_args.targets, "targets file (docs/uncertainty.md)")->required()->check(not_empty);
    cal->add_option("--params", cal_args.params, "the costs to fit: a,b (default: the targets file's params)");
    cal->add_option("--out", cal_args.out, "the fitted machine file (default: MACHINE_calibrated.toml)")
        ->check(not_empty);
    cal->add_option("--jobs,-j", cal_args.jobs, "threads running the targets' points (default: one per CPU)")
        ->check(at_least_one);
    CLI::Option* max_evaluations =
        cal->add_option("--max-evaluations", cal_args.max_evaluations, "objective evaluations at most")
            ->capture_default_str()
            ->check(CLI::Range(1, 100000));
    cal->add_flag("--interval-only", cal_args.interval_only,
                  "fit nothing: the 95% interval the targets give the costs at their present values")
        ->excludes(max_evaluations);
    cal->add_option("--step", cal_args.step,
                    "the intervals' central differences, as a fraction of each range (larger for noisy targets)")
        ->capture_default_str()
        ->check(step_fraction);
    cal->add_flag("-q,--quiet", cal_args.quiet, "no notes on stderr");
    cal->callback([&] { command = [&] { return cli::calibrate_command(cal_args, dirs); }; });
    if (const std::string unknown = unknown_subcommand(app, argc, argv); !unknown.empty()) {
        fmt::print(stderr, "{}\n", unknown);
        return config::kExitBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        const int code = app.exit(e);
        // `ipisim run EXPERIMENT --help`: the parameters and metrics of its workload too.
        if (run->parsed() && !run_args.experiment.empty()) {
            fmt::print("{}", cli::render_workload_help(cli::resolve_experiment(run_args.experiment, dirs)));
        }
        return code;
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : config::kExitBadInput;
    }
    return guarded(command);
}
