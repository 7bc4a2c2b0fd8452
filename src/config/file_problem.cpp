#include "config/file_problem.h"

#include <filesystem>

namespace ipisim::config {

std::string file_problem(const std::string& path) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(path, ec);
    switch (st.type()) {
        case std::filesystem::file_type::regular:
            return "";
        case std::filesystem::file_type::not_found: {
            std::error_code link_ec;
            return std::filesystem::is_symlink(std::filesystem::symlink_status(path, link_ec))
                       ? "a symbolic link to a missing file"
                       : "no such file";
        }
        case std::filesystem::file_type::none:
            return "cannot be read: " + ec.message();
        default:
            return "not a regular file";
    }
}

}  // namespace ipisim::config
