// Test support: the whole contents of a file, byte for byte ("" when it cannot be opened: the
// test's own expectation on the contents then fails and names the file).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ipisim::test {

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace ipisim::test
