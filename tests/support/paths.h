// Test support: paths into the source tree (machines/, experiments/) and into tests/data, as
// strings (IPISIM_SOURCE_DIR and IPISIM_TEST_DATA are the test target's compile definitions).
//
//   test::source_path("experiments/seed000_rar.toml");
//   load_topology_xml(test::data_path("hwloc/two_packages.xml"));
// A machine of machines/ by name: test::load_test_machine (support/test_machine.h).
#pragma once

#include <string>
#include <string_view>

namespace ipisim::test {

// IPISIM_SOURCE_DIR/relative.
std::string source_path(std::string_view relative);
// IPISIM_TEST_DATA/relative.
std::string data_path(std::string_view relative);

}  // namespace ipisim::test
