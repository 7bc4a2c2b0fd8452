#include "cli/output_paths.h"

#include "config/error.h"
#include "report/atomic_file.h"

namespace ipisim::cli {

void check_output_file(const std::string& flag, const std::filesystem::path& file) {
    if (const std::string problem = report::file_write_problem(file); !problem.empty()) {
        throw config::ConfigError(flag, 0, file.string(), problem);
    }
}

void check_output_folder(const std::string& flag, const std::filesystem::path& dir) {
    if (const std::string problem = report::folder_write_problem(dir); !problem.empty()) {
        throw config::ConfigError(flag, 0, dir.string(), problem);
    }
}

}  // namespace ipisim::cli
