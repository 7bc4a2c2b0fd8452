// ipisim: the command line. Each subcommand is a function in its own file; this file only
// parses arguments and turns errors into messages and exit codes.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <functional>

#include "cli/data_dirs.h"
#include "cli/list_command.h"
#include "cli/machine_command.h"
#include "cli/merge_command.h"
#include "cli/params_command.h"
#include "cli/reproduce_command.h"
#include "cli/run_command.h"
#include "config/error.h"
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

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "ipisim: deterministic simulation of cross-CPU communication (IPIs, "
        "smp_call_function*, TLB shootdown) on modeled many-core machines"};
    app.set_version_flag("--version", std::string("ipisim ") + IPISIM_VERSION);
    app.require_subcommand(1);
    app.fallthrough();

    cli::DataDirs dirs = cli::default_data_dirs();
    app.add_option("--machines", dirs.machines, "directory of machine files")->capture_default_str();
    app.add_option("--experiments", dirs.experiments, "directory of experiment files")->capture_default_str();

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
    CLI::Option* seed_opt = run->add_option("--seed", seed, "override experiment.seed");
    run->add_option("--set", run_args.overrides, "override a value: key=value (repeatable)")->allow_extra_args(false);
    run->add_option("--out", run_args.out_dir, "output directory (default: results/<experiment name>)");
    run->add_option("--jobs,-j", run_args.jobs, "threads running sweep points (default: one per CPU)")
        ->check(CLI::PositiveNumber);
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
        ->capture_default_str();
    reproduce->add_option("--only", reproduce_args.only, "run only these experiment names (repeatable)");
    reproduce
        ->add_option("--jobs,-j", reproduce_args.jobs,
                     "threads running the points of every experiment (default: one per CPU)")
        ->check(CLI::PositiveNumber);
    reproduce->callback([&] { command = [&] { return cli::reproduce_command(reproduce_args, dirs); }; });

    cli::MergeArgs merge_args;
    CLI::App* merge = app.add_subcommand("merge", "combine the shard folders of one sweep (run --shard i/N)");
    merge->add_option("shards", merge_args.shards, "the shard folders")->required();
    merge->add_option("--out", merge_args.out_dir, "output directory of the combined results")->required();
    merge->add_flag("--force", merge_args.force, "replace results of another experiment in --out");
    merge->callback([&] { command = [&] { return cli::merge_command(merge_args, dirs); }; });

    std::string xml_path;
    std::string out_path;
    CLI::App* machine = app.add_subcommand("machine", "machine files");
    machine->require_subcommand(1);
    CLI::App* import = machine->add_subcommand("import", "machine-file skeleton from hwloc XML (lstopo --of xml)");
    import->add_option("xml", xml_path, "hwloc XML file")->required();
    import->add_option("-o,--output", out_path, "output TOML file (default: stdout)");
    import->callback([&] { command = [&] { return cli::machine_import_command(xml_path, out_path);
};
});

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
