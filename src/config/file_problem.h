// Why a path cannot be read as a config file: the one wording every loader uses.
#pragma once

#include <string>

namespace ipisim::config {

// "" when `path` is a regular file; else "no such file", "a symbolic link to a missing file",
// "cannot be read: Too many levels of symbolic links" (a symlink loop; the system's message for
// other errors) or "not a regular file" (a directory, a FIFO, a device).
std::string file_problem(const std::string& path);

}  // namespace ipisim::config
