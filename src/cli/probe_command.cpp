#include "cli/probe_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/data_dirs.h"
#include "cli/output_paths.h"
#include "cli/probe_fit.h"
#include "config/error.h"
#include "probe/host_file.h"
#include "probe/host_schema.h"
#include "probe/probe.h"
#include "probe/probe_report.h"
#include "report/results_files.h"

namespace ipisim::cli {

std::string command_line(int argc, char** argv) {
    std::string out = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "ipisim";
    for (int i = 1; i < argc; ++i) out += std::string(" ") + argv[i];
    return out;
}

int probe_command(const ProbeArgs& args) {
    const std::filesystem::path out(args.out_dir);
    check_output_folder("--out", out);
    probe::ProbeOptions options;
    options.quick = args.quick;
    options.realtime = args.realtime;
    options.command = args.command.empty() ? "ipisim probe" : args.command;
    options.progress = [](const std::string& step) { fmt::print(stderr, "probe: {}\n", step); };
    const probe::ProbeResults r = probe::run_probe(options);

    const std::filesystem::path host = out / "host.toml";
    const std::string text = probe::host_machine_text(r);
    report::write_text_file(host, text);
    // The file must read back: through the schema checks of every key and mark it holds, and
    // through the machine loader.
    probe::load_host_machine(text, host.string());
    // The assumed cost the probe's own microbenchmarks determine, fitted in place.
    const std::string fit = fit_host_machine(r, host, default_data_dirs().experiments);

    const std::string summary = probe::render_probe_summary(r) + "\n" + fit;
    report::write_text_file(out / "probe.json", probe::probe_json(r).dump(2) + "\n");
    report::write_text_file(out / "summary.txt", summary);
    fmt::print("{}", summary);
    fmt::print("\nwrote {} (machine file), {} and {}\n", host.string(), (out / "probe.json").string(),
               (out / "summary.txt").string());
    return 0;
}

}  // namespace ipisim::cli
