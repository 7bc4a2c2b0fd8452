// `ipisim list`: the machines and experiments on disk and the registered components.
#pragma once

#include <string>

#include "cli/data_dirs.h"

namespace ipisim::cli {

std::string render_list(const DataDirs& dirs);
// `ipisim list --params NAME`: the declared parameters of NAME ("machine"); a ConfigError
// (exit 2) for an unknown name.
std::string render_params(const std::string& name);

}  // namespace ipisim::cli
