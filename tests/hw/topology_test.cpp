// Topology: counts, Linux CPU numbering, distance classes, hardware ids, validation.
#include "hw/topology.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "config/writer.h"

namespace ipisim::hw {
namespace {

TopologySpec spec(uint32_t packages, uint32_t dies, uint32_t l3, uint32_t cores, uint32_t threads, uint32_t nodes,
                  CpuNumbering numbering = CpuNumbering::smt_last) {
    TopologySpec s;
    s.packages = packages;
    s.dies_per_package = dies;
    s.l3_per_die = l3;
    s.cores_per_l3 = cores;
    s.threads_per_core = threads;
    s.numa_nodes = nodes;
    s.cpu_numbering = numbering;
    return s;
}

TEST(Topology, counts_multiply_through_the_hierarchy) {
    const Topology t(spec(2, 2, 6, 4, 1, 4));
    EXPECT_EQ(t.nr_cpus(), 96U);
    EXPECT_EQ(t.nr_cores(), 96U);
    EXPECT_EQ(t.nr_l3(), 24U);
    EXPECT_EQ(t.nr_dies(), 4U);
    EXPECT_EQ(t.nr_packages(), 2U);
    EXPECT_EQ(t.nr_nodes(), 4U);
}

TEST(Topology, smt_last_numbers_all_first_threads_before_any_sibling) {
    const Topology t(spec(2, 1, 1, 4, 2, 2, CpuNumbering::smt_last));
    // CPUs 0..7 are the first threads of the 8 cores; CPU 8 is the sibling of CPU 0.
    EXPECT_EQ(t.cpu(0).core, 0U);
    EXPECT_EQ(t.cpu(7).core, 7U);
    EXPECT_EQ(t.cpu(8).core, 0U);
    EXPECT_EQ(t.cpu(8).smt, 1U);
    EXPECT_EQ(t.siblings(0), (std::vector<CpuId>{0, 8}));
    EXPECT_EQ(t.cpu(4).package, 1U);
    EXPECT_EQ(t.cpu(12).package, 1U);
    EXPECT_EQ(t.cpus_in_package(0), (std::vector<CpuId>{0, 1, 2, 3, 8, 9, 10, 11}));
}

TEST(Topology, smt_adjacent_numbers_siblings_consecutively) {
    const Topology t(spec(2, 1, 1, 4, 2, 2, CpuNumbering::smt_adjacent));
    EXPECT_EQ(t.siblings(0), (std::vector<CpuId>{0, 1}));
    EXPECT_EQ(t.siblings(5), (std::vector<CpuId>{4, 5}));
    EXPECT_EQ(t.cpu(8).package, 1U);
    EXPECT_EQ(t.distance(0, 1), DistanceClass::smt);
    EXPECT_EQ(t.distance(0, 2), DistanceClass::same_l3);
}

TEST(Topology, distance_classes_follow_the_first_shared_level) {
    // 2 packages x 2 dies x 2 L3 x 2 cores x 2 threads = 32 CPUs, smt_last: cores 0..15.
    const Topology t(spec(2, 2, 2, 2, 2, 2));
    EXPECT_EQ(t.distance(3, 3), DistanceClass::self);
    EXPECT_EQ(t.distance(0, 16), DistanceClass::smt);
    EXPECT_EQ(t.distance(0, 1), DistanceClass::same_l3);
    EXPECT_EQ(t.distance(0, 2), DistanceClass::same_die);
    EXPECT_EQ(t.distance(0, 4), DistanceClass::same_package);
    EXPECT_EQ(t.distance(0, 8), DistanceClass::cross_package);
    EXPECT_EQ(t.distance(17, 1), DistanceClass::smt);  // CPU 17 is the second thread of core 1
    EXPECT_EQ(t.distance(17, 0), DistanceClass::same_l3);
    EXPECT_EQ(t.distance(8, 0), t.distance(0, 8));
}

TEST(Topology, has_class_is_false_for_levels_of_one) {
    const Topology t(spec(1, 1, 1, 4, 1, 1));
    EXPECT_TRUE(t.has_class(DistanceClass::same_l3));
    EXPECT_FALSE(t.has_class(DistanceClass::smt));
    EXPECT_FALSE(t.has_class(DistanceClass::same_die));
    EXPECT_FALSE(t.has_class(DistanceClass::cross_package));
}

TEST(Topology, numa_nodes_cover_whole_l3_domains_in_order) {
    // 2 packages x 4 L3 x 2 cores, 4 nodes: two L3 domains per node.
    const Topology t(spec(2, 1, 4, 2, 1, 4));
    EXPECT_EQ(t.node_of(0), 0U);
    EXPECT_EQ(t.node_of(3), 0U);
    EXPECT_EQ(t.node_of(4), 1U);
    EXPECT_EQ(t.node_of(8), 2U);
    EXPECT_EQ(t.node_of(15), 3U);
    EXPECT_EQ(t.package_of_node(3), 1U);
    EXPECT_EQ(t.cpus_in_node(1), (std::vector<CpuId>{4, 5, 6, 7}));
    EXPECT_EQ(t.cpus_in_l3(5), (std::vector<CpuId>{10, 11}));
}

TEST(Topology, apic_ids_pack_bit_fields_so_x2apic_clusters_hold_16_ids) {
    // Rome-like: 2 packages x 8 CCDs x 2 CCX x 4 cores x 2 threads: 8-bit APIC ids.
    const Topology t(spec(2, 8, 2, 4, 2, 2));
    EXPECT_EQ(t.hw_id(0), 0U);
    EXPECT_EQ(t.hw_id(128), 1U);  // sibling of core 0 (smt_last)
    EXPECT_EQ(t.hw_id(1), 2U);
    EXPECT_EQ(t.hw_id(4), 8U);     // first core of the second CCX
    EXPECT_EQ(t.hw_id(8), 16U);    // first core of the second CCD: next x2APIC cluster
    EXPECT_EQ(t.hw_id(64), 128U);  // first core of package 1
    EXPECT_EQ(t.hw_id(255), 255U);
}

TEST(Topology, mpidr_mt_puts_the_thread_in_aff0_and_the_die_in_aff3) {
    TopologySpec s = spec(2, 2, 6, 4, 1, 4);
    s.hw_id = HwIdScheme::mpidr_mt;
    const Topology t(s);
    const uint64_t id = t.hw_id(29);  // die 1, cluster 1 of that die, core 1
    EXPECT_EQ(id & 0xFF, 0U);
    EXPECT_EQ((id >> 8) & 0xFF, 1U);
    EXPECT_EQ((id >> 16) & 0xFF, 1U);
    EXPECT_EQ((id >> 32) & 0xFF, 1U);
}

TEST(Topology, mpidr_flat_puts_cluster_cpus_in_aff0) {
    TopologySpec s = spec(2, 1, 2, 4, 2, 2, CpuNumbering::smt_adjacent);
    s.hw_id = HwIdScheme::mpidr_flat;
    const Topology t(s);
    EXPECT_EQ(t.hw_id(7), 7U);           // cluster 0, core 3, thread 1
    EXPECT_EQ(t.hw_id(8), 1ULL << 8);    // cluster 1 -> Aff1
    EXPECT_EQ(t.hw_id(16), 1ULL << 32);  // package 1 -> Aff3
}

TEST(Topology, the_constructor_rejects_an_empty_or_unevenly_divided_layout) {
    EXPECT_THROW(Topology(spec(1, 1, 1, 0, 1, 1)), std::invalid_argument);
    EXPECT_THROW(Topology(spec(2, 1, 1, 2, 1, 3)), std::invalid_argument);
}

TEST(Topology, parse_topology_rejects_mpidr_fields_above_255) {
    config::Document doc = config::Document::parse(
        "packages = 1\ndies_per_package = 1\nl3_per_die = 1\ncores_per_l3 = 256\nthreads_per_core = 2\n"
        "numa_nodes = 1\ncpu_numbering = \"smt_last\"\nhw_id = \"mpidr_flat\"\n",
        "t.toml");
    try {
        parse_topology(doc.root(), false);
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_STREQ(e.what(), "t.toml:8: hw_id: an MPIDR affinity field would exceed 255 with this layout");
    }
}

TEST(Topology, the_topology_schema_writes_what_parse_topology_reads_back) {
    TopologySpec s = spec(2, 2, 6, 4, 1, 4, CpuNumbering::smt_adjacent);
    s.hw_id = HwIdScheme::mpidr_mt;
    toml::table t;
    topology_schema().write(s, t);
    toml::table root;
    root.insert("topology", std::move(t));
    config::Document doc = config::Document::parse(config::to_toml_text(root), "f.toml");
    const TopologySpec back = parse_topology(doc.root().table("topology"), false);
    EXPECT_EQ(back.packages, 2U);
    EXPECT_EQ(back.l3_per_die, 6U);
    EXPECT_EQ(back.numa_nodes, 4U);
    EXPECT_EQ(back.cpu_numbering, CpuNumbering::smt_adjacent);
    EXPECT_EQ(back.hw_id, HwIdScheme::mpidr_mt);
}

}  // namespace
}  // namespace ipisim::hw
