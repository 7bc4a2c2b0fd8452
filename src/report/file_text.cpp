#include "report/file_text.h"

#include <fstream>
#include <iterator>

namespace ipisim::report {

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace ipisim::report
