// Test support: a path under the temporary directory that belongs to this test process alone.
// ctest runs every test case as its own process and several at once (-j), so two cases of one
// file that wrote the same fixed name raced each other (one read the other's half-written
// file). The process id in the name keeps them apart.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace ipisim::test {

inline std::filesystem::path scratch_path(const std::string& name) {
    return std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
}

}  // namespace ipisim::test
