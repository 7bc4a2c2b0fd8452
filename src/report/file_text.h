// The whole content of a file as bytes, or "" when it cannot be read (callers that need to tell
// an unreadable file from an empty one check the file first).
#pragma once

#include <filesystem>
#include <string>

namespace ipisim::report {

std::string file_text(const std::filesystem::path& path);

}  // namespace ipisim::report
