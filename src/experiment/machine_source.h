// The machine of an experiment, loaded once per run: machines/NAME.toml (experiment.machine) or
// the embedded [machine], with the `--set machine.KEY=VALUE` overrides applied to its document
// before hw::load_machine() reads it.
#pragma once

#include <memory>
#include <string>

#include "config/table.h"
#include "experiment/experiment.h"
#include "hw/machine.h"

namespace ipisim::experiment {

struct LoadedMachine {
    config::Document document;  // as read, overrides applied (written into config.toml)
    std::shared_ptr<const hw::MachineSpec> spec;
};

// A machine file that does not exist is a ConfigError at experiment.machine (the experiment's
// file and line); mistakes in the machine are located in its file (or at --set, or in the
// experiment's [machine]).
LoadedMachine load_experiment_machine(const Experiment& e, const std::string& machines_dir);

}  // namespace ipisim::experiment
