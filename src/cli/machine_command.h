// `ipisim machine show NAME`, `ipisim machine import FILE.xml [-o OUT.toml]` and the machine
// part of `ipisim list --params machine`, all from the machine schema.
#pragma once

#include <string>

#include "cli/data_dirs.h"
#include "hw/machine.h"

namespace ipisim::cli {

// Writes the TOML to out_path, or to stdout when out_path is empty. Returns the exit code.
int machine_import_command(const std::string& xml_path, const std::string& out_path);

// `machine`: a name in the machines directory, or a path to a machine file.
int machine_show_command(const std::string& machine, const DataDirs& dirs);

// The topology tree (packages, dies, L3 domains with their NUMA node, cores with CPU numbers
// and hardware ids), the distance classes with their transfer and delivery latencies, the idle
// states, then every cost with value, mark, range and source.
std::string render_machine(const hw::MachineSpec& m);

// Every machine section's parameters and each registered controller's [intc.params].
std::string render_machine_params();

}  // namespace ipisim::cli
