// Where machine and experiment files live: --machines / --experiments, else $IPISIM_HOME/machines
// and $IPISIM_HOME/experiments, else the source tree the binary was built from.
#pragma once

#include <string>

namespace ipisim::cli {

struct DataDirs {
    std::string machines;
    std::string experiments;
};

DataDirs default_data_dirs();

// An experiment argument: an existing path, else a file (or name without ".toml") in the
// experiments directory, else the argument itself (whose loading then reports it missing).
std::string resolve_experiment(const std::string& arg, const DataDirs& dirs);

}  // namespace ipisim::cli
