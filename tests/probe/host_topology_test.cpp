// The probed topology from hwloc XML: distance classes as hw::Topology::distance classifies
// them, the one-task-per-core-first order, and the importer's [topology] for host.toml.
#include "probe/host_topology.h"

#include <gtest/gtest.h>

#include "support/paths.h"

namespace ipisim::probe {
namespace {

const std::string kTwoPackages = ipisim::test::data_path("hwloc/two_packages.xml");
const std::string kEpycVm = ipisim::test::data_path("hwloc/epyc_vm_2cpu.xml");

TEST(ProbeHostTopology, pairs_are_classified_like_the_models_distance_classes) {
    const HostTopology t = load_topology_xml(kTwoPackages);
    ASSERT_EQ(t.cpus.size(), 32U);
    EXPECT_EQ(t.distance(0, 0), hw::DistanceClass::self);
    EXPECT_EQ(t.distance(0, 1), hw::DistanceClass::smt);
    EXPECT_EQ(t.distance(0, 2), hw::DistanceClass::same_l3);
    // No Die objects: the package is the die, so another L3 of the package is same_die.
    EXPECT_EQ(t.distance(0, 8), hw::DistanceClass::same_die);
    EXPECT_EQ(t.distance(0, 16), hw::DistanceClass::cross_package);
    EXPECT_EQ(t.distance(17, 31), hw::DistanceClass::same_die);
}

TEST(ProbeHostTopology, tasks_are_bound_one_per_core_first_then_to_siblings) {
    const HostTopology t = load_topology_xml(kTwoPackages);
    ASSERT_EQ(t.task_order.size(), 32U);
    EXPECT_EQ(t.task_order[0], 0);
    EXPECT_EQ(t.task_order[1], 2);
    EXPECT_EQ(t.task_order[15], 30);
    EXPECT_EQ(t.task_order[16], 1);
    EXPECT_EQ(t.task_order[31], 31);
}

TEST(ProbeHostTopology, the_skeleton_comes_from_the_projects_hwloc_importer) {
    const HostTopology t = load_topology_xml(kEpycVm);
    EXPECT_TRUE(t.skeleton_error.empty()) << t.skeleton_error;
    EXPECT_NE(t.skeleton.find("[topology]"), std::string::npos);
    EXPECT_NE(t.skeleton.find("cores_per_l3 = 2"), std::string::npos);
    ASSERT_EQ(t.cpus.size(), 2U);
    EXPECT_EQ(t.distance(0, 1), hw::DistanceClass::same_l3);
}

TEST(ProbeHostTopology, an_unreadable_file_is_an_error_naming_it) {
    EXPECT_THROW(load_topology_xml(ipisim::test::data_path("hwloc/not_xml.xml")), std::runtime_error);
}

}  // namespace
}  // namespace ipisim::probe
