#include "experiment/machine_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "config/file_problem.h"
#include "config/suggest.h"

namespace ipisim::experiment {

namespace {

// Stems of machines_dir/*.toml, sorted; entries that cannot be inspected are left out.
std::vector<std::string> machine_names(const std::string& machines_dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(machines_dir, ec)) {
        std::error_code entry_ec;
        if (entry.is_regular_file(entry_ec) && entry.path().extension() == ".toml") {
            out.push_back(entry.path().stem().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

config::Document machine_file(const Experiment& e, const std::string& machines_dir) {
    const std::string& name = *e.table.machine;
    const std::filesystem::path file = std::filesystem::path(machines_dir) / (name + ".toml");
    if (const std::string why = config::file_problem(file.string()); !why.empty()) {
        const std::vector<std::string> known = machine_names(machines_dir);
        std::string problem = fmt::format("no machine \"{}\" ({}: {})", name, file.string(), why);
        problem += config::did_you_mean(name, known);
        if (!known.empty()) problem += fmt::format("; available: {}", fmt::join(known, ", "));
        throw config::ConfigError(e.machine_file, e.machine_line, "experiment.machine", problem);
    }
    return config::Document::load(file.string());
}

// Mistakes in the embedded [machine] or in a --set machine.KEY value are named as the
// experiment names them: machine.KEY.
[[noreturn]] void rethrow_as_machine_key(const config::ConfigError& err, const Experiment& e) {
    if (err.file() == config::kOverrideSource || (e.embedded_machine && err.file() == e.file)) {
        throw config::ConfigError(err.file(), err.line(), "machine." + err.key(), err.problem());
    }
    throw err;
}

}  // namespace

LoadedMachine load_experiment_machine(const Experiment& e, const std::string& machines_dir) {
    LoadedMachine out;
    const std::string name = e.table.machine.value_or(e.name());
    try {
        if (e.embedded_machine) {
            out.document = *e.embedded_machine;  // the overrides are in it already
        } else {
            out.document = machine_file(e, machines_dir);
            for (const std::string& o : e.machine_overrides) out.document.apply_override(o);
        }
        out.spec = std::make_shared<const hw::MachineSpec>(hw::load_machine(out.document, name));
    } catch (const config::ConfigError& err) {
        if (err.key() == "experiment.machine") throw;
        rethrow_as_machine_key(err, e);
    }
    return out;
}

}  // namespace ipisim::experiment
