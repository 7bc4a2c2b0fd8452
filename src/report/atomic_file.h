// Files that are either entirely old or entirely new: the text goes to a temporary file in the
// same directory, is flushed to disk (fsync), then renamed over the target, and the directory
// entry is flushed too. A crash or a signal at any moment leaves the previous file or the new
// one, never a mix or a truncated file.
#pragma once

#include <filesystem>
#include <string>

namespace ipisim::report {

// Writes text to path atomically, creating its directory; std::runtime_error naming the path
// and the system's reason on failure (the temporary file is removed).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Why write_file_atomically(path, ...) would fail, as far as the file system says now, or "":
// path is a directory, or the nearest existing one of its folders is not a directory or takes
// no new file. Writes nothing (a probe file is created and removed). For output a flag names,
// checked before any work.
std::string file_write_problem(const std::filesystem::path& path);

// The same for files written into the folder `dir` (created when missing).
std::string folder_write_problem(const std::filesystem::path& dir);

}  // namespace ipisim::report
