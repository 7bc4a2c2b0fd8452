// `ipisim list`: the machines and experiments on disk and the registered components.
#pragma once

#include <string>

#include "cli/data_dirs.h"

namespace ipisim::cli {

std::string render_list(const DataDirs& dirs);

}  // namespace ipisim::cli
