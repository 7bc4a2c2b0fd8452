// Where a result came from: the ipisim version and the git commit its binary was built from
// (results.json "ipisim_version", "git_commit"; `ipisim --version`).
#pragma once

#include <string_view>

namespace ipisim::experiment {

// The project version ("0.1.0").
std::string_view ipisim_version();
// `git describe --always --dirty` of the source tree at build time ("6f1c2ab90d3e-dirty"), or
// "unknown" when it was not built from a git checkout. Defined in a file the build generates
// (cmake/git_describe.cmake).
std::string_view git_commit();

}  // namespace ipisim::experiment
