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
// path's directory cannot be created, no file can be made in it, or path is a directory. Leaves
// the directory created and nothing else. For output named by a flag, checked before any work.
std::string file_write_problem(const std::filesystem::path& path);

}  // namespace ipisim::report
