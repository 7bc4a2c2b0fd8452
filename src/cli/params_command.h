// `ipisim list --params [NAME]`: the declared parameters (config::schema_catalog()) with type,
// unit, default or "required", allowed values and bounds, condition, and what each means. NAME
// is "kernel", "experiment", "report", a workload ("tlb_flush2": its parameters and metrics),
// "machine" (every machine section and each interrupt controller's [intc.params]: `ipisim
// machine`, cli/machine_command.h), or a prefix of declared schemas; without NAME, every schema.
#pragma once

#include <string>

namespace ipisim::cli {

// An unknown NAME is a config::ConfigError naming the known ones.
std::string render_params(const std::string& name);

// For `ipisim run EXPERIMENT --help`: the parameters and metrics of the workload the experiment
// names ("" when the file does not parse or names no known workload).
std::string render_workload_help(const std::string& experiment_file);

}  // namespace ipisim::cli
