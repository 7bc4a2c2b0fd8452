#include "support/paths.h"

#include <fmt/format.h>

namespace ipisim::test {

std::string source_path(std::string_view relative) {
    return fmt::format("{}/{}", IPISIM_SOURCE_DIR, relative);
}

std::string data_path(std::string_view relative) {
    return fmt::format("{}/{}", IPISIM_TEST_DATA, relative);
}

}  // namespace ipisim::test
