// Output files and folders named by a flag (--out, --output, --trace), checked before any work:
// a place the command could not write its results to at the end is a config::ConfigError now,
// "FLAG: PATH: the reason" (exit 2), instead of an error after minutes of measuring or
// simulating. Nothing is created (a probe file is made and removed).
#pragma once

#include <filesystem>
#include <string>

namespace ipisim::cli {

void check_output_file(const std::string& flag, const std::filesystem::path& file);
void check_output_folder(const std::string& flag, const std::filesystem::path& dir);

}  // namespace ipisim::cli
