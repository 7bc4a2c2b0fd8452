#include "cli/data_dirs.h"

#include <cstdlib>
#include <filesystem>

namespace ipisim::cli {

DataDirs default_data_dirs() {
    const char* home = std::getenv("IPISIM_HOME");
    const std::filesystem::path root = home != nullptr && *home != '\0' ? home : IPISIM_SOURCE_DIR;
    return DataDirs{(root / "machines").string(), (root / "experiments").string()};
}

std::string resolve_experiment(const std::string& arg, const DataDirs& dirs) {
    std::error_code ec;
    if (std::filesystem::exists(arg, ec)) return arg;
    for (const std::string& candidate : {arg, arg + ".toml"}) {
        const std::filesystem::path p = std::filesystem::path(dirs.experiments) / candidate;
        if (std::filesystem::is_regular_file(p, ec)) return p.string();
    }
    return arg;
}

}  // namespace ipisim::cli
