// Machine profiles: every shipped file loads with the expected shape; every bad file in
// tests/data/bad_machines fails with the message on its "# expect:" first line; the hwloc
// importer round-trips through load_machine.
#include "hw/machine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hw/hwloc_import.h"
#include "hw/intc/gicv3.h"
#include "hw/intc/intc_type.h"
#include "hw/intc/x2apic.h"
#include "hw/intc/xapic_mmio.h"
#include "support/paths.h"

namespace ipisim::hw {
namespace {

using namespace sim::literals;

const std::string kMachines = ipisim::test::source_path("machines");
const std::string kBad = ipisim::test::data_path("bad_machines");
const std::string kHwloc = ipisim::test::data_path("hwloc");

TEST(Machine, every_shipped_machine_loads) {
    const auto names = list_machines(kMachines);
    ASSERT_GE(names.size(), 10U);
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        const MachineSpec m = load_machine_by_name(kMachines, name);
        EXPECT_EQ(m.name, name);
        EXPECT_FALSE(m.description.empty());
        EXPECT_FALSE(m.idle.empty());
        EXPECT_GT(m.intc.capacity, 0U);
        for (DistanceClass c : kAllDistanceClasses) {
            if (m.topology.has_class(c)) {
                EXPECT_GT(m.coherence.transfer.at(c), sim::Picos::zero()) << to_string(c);
                EXPECT_GT(m.intc.delivery.at(c), sim::Picos::zero()) << to_string(c);
            }
        }
    }
}

// The benchmark target's big machines (bench/machines: host1024, host4096) are not in machines/;
// they must keep loading when the machine schema gains a required key.
TEST(Machine, every_benchmark_machine_loads) {
    const std::string dir = ipisim::test::source_path("bench/machines");
    const auto names = list_machines(dir);
    ASSERT_GE(names.size(), 2U);
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        const MachineSpec m = load_machine_by_name(dir, name);
        EXPECT_GE(m.topology.nr_cpus(), 1024U);
    }
}

// The calibration rules (docs/calibration.md): every cost of a shipped machine names its
// provenance; an assumption (A) or fit (F) states its plausible range and, in its source, what the
// range is based on ("range: ..."). Toy machines (toy*.toml) are round numbers by design.
TEST(Machine, every_cost_of_every_shipped_machine_is_marked_and_every_assumption_has_a_range) {
    size_t machines = 0;
    for (const auto& name : list_machines(kMachines)) {
        if (name.rfind("toy", 0) == 0) continue;
        SCOPED_TRACE(name);
        ++machines;
        const MachineSpec m = load_machine_by_name(kMachines, name);
        ASSERT_GT(m.costs.size(), 30U);
        for (const config::CostValue& c : m.costs) {
            SCOPED_TRACE(c.key);
            const config::Provenance& p = c.provenance;
            EXPECT_NE(p.mark, config::Mark::unmarked);
            EXPECT_NE(p.mark, config::Mark::set);
            EXPECT_FALSE(p.source.empty());
            EXPECT_EQ(p.source.find("../shared"), std::string::npos);
            if (p.mark == config::Mark::A || p.mark == config::Mark::F) {
                EXPECT_TRUE(p.range.has_value());
                EXPECT_NE(p.source.find("range:"), std::string::npos) << "no rationale for the range: " << p.source;
            }
        }
    }
    EXPECT_GE(machines, 7U);
}

struct Shape {
    const char* name;
    uint32_t cpus, packages, dies, l3, nodes, threads;
    const char* intc;
};

TEST(Machine, seed_machines_have_the_published_shape) {
    const Shape shapes[] = {
        {"sapphire_rapids_30c", 60, 1, 1, 1, 1, 2, "xapic_mmio"},
        {"milan_36c", 36, 1, 6, 6, 1, 1, "x2apic_cluster"},
        {"milan_72", 72, 1, 6, 6, 1, 2, "x2apic_cluster"},
        {"kunpeng920", 96, 2, 4, 24, 4, 1, "gicv3"},
        {"epyc_7b12_2s", 256, 2, 16, 32, 2, 2, "x2apic_cluster"},
        {"xeon_8173m_2s", 112, 2, 2, 2, 2, 2, "x2apic_cluster"},
        {"host256", 256, 2, 16, 32, 2, 2, "x2apic_cluster"},
        {"toy2", 2, 1, 1, 1, 1, 1, "x2apic_phys"},
        {"toy4", 4, 1, 1, 1, 1, 2, "xapic_mmio"},
        {"toy8", 8, 2, 2, 4, 2, 1, "x2apic_cluster"},
        {"toy4_arm", 4, 2, 2, 2, 2, 1, "gicv3"},
    };
    for (const Shape& s : shapes) {
        SCOPED_TRACE(s.name);
        const MachineSpec m = load_machine_by_name(kMachines, s.name);
        EXPECT_EQ(m.topology.nr_cpus(), s.cpus);
        EXPECT_EQ(m.topology.nr_packages(), s.packages);
        EXPECT_EQ(m.topology.nr_dies(), s.dies);
        EXPECT_EQ(m.topology.nr_l3(), s.l3);
        EXPECT_EQ(m.topology.nr_nodes(), s.nodes);
        EXPECT_EQ(m.topology.spec().threads_per_core, s.threads);
        EXPECT_EQ(m.intc.kind, s.intc);
    }
}

TEST(Machine, kunpeng920_crosses_packages_at_cpu_48_and_dies_at_cpu_24) {
    const MachineSpec m = load_machine_by_name(kMachines, "kunpeng920");
    EXPECT_EQ(m.arch, Arch::arm64);
    EXPECT_EQ(m.topology.distance(0, 48), DistanceClass::cross_package);
    EXPECT_EQ(m.topology.distance(0, 24), DistanceClass::same_package);
    EXPECT_EQ(m.topology.distance(0, 4), DistanceClass::same_die);
    EXPECT_EQ(m.topology.distance(0, 3), DistanceClass::same_l3);
    EXPECT_EQ(m.topology.cpus_in_l3(1), (std::vector<CpuId>{4, 5, 6, 7}));
    EXPECT_EQ(m.topology.node_of(95), 3U);
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::same_package), sim::Picos(80'500));
    EXPECT_EQ(m.clock.khz(), 2'600'000U);
}

TEST(Machine, epyc_7b12_has_4_core_ccx_and_siblings_128_apart) {
    const MachineSpec m = load_machine_by_name(kMachines, "epyc_7b12_2s");
    EXPECT_EQ(m.topology.cpus_in_l3(0), (std::vector<CpuId>{0, 1, 2, 3, 128, 129, 130, 131}));
    EXPECT_EQ(m.topology.distance(0, 128), DistanceClass::smt);
    EXPECT_EQ(m.topology.distance(0, 64), DistanceClass::cross_package);
    EXPECT_EQ(intc_params<X2apicParams>(m).fence, sim::Picos::zero());
    EXPECT_EQ(m.tlb.invlpgb_count_max, 0U);
}

TEST(Machine, sapphire_rapids_has_rar_and_xapic_busy_costs) {
    const MachineSpec m = load_machine_by_name(kMachines, "sapphire_rapids_30c");
    EXPECT_EQ(m.tlb.rar_payloads, 64U);
    EXPECT_GT(intc_params<XapicParams>(m).icr_busy, sim::Picos::zero());
    EXPECT_EQ(m.topology.siblings(0), (std::vector<CpuId>{0, 30}));
    ASSERT_EQ(m.idle.size(), 4U);
    EXPECT_EQ(m.idle[0].mechanism, IdleMechanism::poll);
    EXPECT_EQ(m.idle[3].mechanism, IdleMechanism::mwait);
    EXPECT_EQ(m.idle[3].exit_latency, 290_us);
}

TEST(Machine, milan_has_invlpgb_and_no_rar) {
    const MachineSpec m = load_machine_by_name(kMachines, "milan_36c");
    EXPECT_GT(m.tlb.invlpgb_count_max, 0U);
    EXPECT_GT(m.tlb.tlbsync, sim::Picos::zero());
    EXPECT_EQ(m.tlb.rar_payloads, 0U);
}

TEST(Machine, toy8_has_round_numbers_for_exact_timing) {
    const MachineSpec m = load_machine_by_name(kMachines, "toy8");
    EXPECT_EQ(m.clock.to_time(sim::Cycles(1)), 1_ns);
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::self), 1_ns);
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::same_l3), 50_ns);
    EXPECT_EQ(m.coherence.transfer.at(DistanceClass::cross_package), 200_ns);
    EXPECT_EQ(m.intc.delivery.at(DistanceClass::cross_package), 1_us);
}

TEST(Machine, the_controller_reads_its_own_params_through_its_schema) {
    const MachineSpec m = load_machine_by_name(kMachines, "kunpeng920");
    EXPECT_EQ(intc_params<Gicv3Params>(m).isb, 10_ns);
    EXPECT_EQ(intc_params<Gicv3Params>(m).dsb_st, 100_ns);
    EXPECT_THROW((void)intc_params<X2apicParams>(m), std::bad_any_cast);
}

TEST(Machine, an_unknown_machine_name_lists_the_available_ones) {
    try {
        load_machine_by_name(kMachines, "pentium");
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown machine \"pentium\"; available: "), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("kunpeng920"), std::string::npos);
    }
}

// Each bad file starts with "# expect: LINE: key: problem".
TEST(Machine, every_bad_machine_fails_with_its_expected_message) {
    size_t checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kBad)) {
        const std::string path = entry.path().string();
        SCOPED_TRACE(path);
        std::ifstream in(path);
        std::string first;
        std::getline(in, first);
        const std::string tag = "# expect: ";
        ASSERT_EQ(first.rfind(tag, 0), 0U) << "first line must be \"" << tag << "...\"";
        try {
            load_machine(path);
            ADD_FAILURE() << "loaded without error";
        } catch (const config::ConfigError& e) {
            EXPECT_EQ(std::string(e.what()), path + ":" + first.substr(tag.size()));
        }
        ++checked;
    }
    EXPECT_GE(checked, 15U);
}

TEST(Machine, hwloc_import_of_a_two_package_xml_loads_with_its_counts) {
    const std::string text = import_hwloc_xml(kHwloc + "/two_packages.xml");
    EXPECT_NE(text.find("TODO: measure"), std::string::npos);
    const MachineSpec m = load_machine(config::Document::parse(text, "imported.toml"), "imported");
    EXPECT_EQ(m.topology.nr_packages(), 2U);
    EXPECT_EQ(m.topology.nr_l3(), 4U);
    EXPECT_EQ(m.topology.nr_nodes(), 4U);
    EXPECT_EQ(m.topology.nr_cpus(), 32U);
    EXPECT_EQ(m.topology.spec().threads_per_core, 2U);
    EXPECT_EQ(m.topology.spec().cpu_numbering, CpuNumbering::smt_adjacent);
}

TEST(Machine, hwloc_import_of_a_real_lstopo_xml_names_the_vendor) {
    const std::string text = import_hwloc_xml(kHwloc + "/epyc_vm_2cpu.xml");
    const MachineSpec m = load_machine(config::Document::parse(text, "vm.toml"), "vm");
    EXPECT_EQ(m.topology.nr_cpus(), 2U);
    EXPECT_EQ(m.vendor, Vendor::amd);
    EXPECT_EQ(intc_params<X2apicParams>(m).fence, sim::Picos::zero());  // AMD: weak_wrmsr_fence is a no-op
}

TEST(Machine, hwloc_import_of_an_arm64_xml_loads_with_gicv3_and_no_x86_keys) {
    // Regression: the arm64 skeleton used to carry tlb.nr_dyn_asids and did not load.
    const std::string text = import_hwloc_xml(kHwloc + "/arm64_2_packages.xml");
    const MachineSpec m = load_machine(config::Document::parse(text, "arm.toml"), "arm");
    EXPECT_EQ(m.arch, Arch::arm64);
    EXPECT_EQ(m.vendor, Vendor::hisilicon);
    EXPECT_EQ(m.intc.kind, "gicv3");
    EXPECT_EQ(m.topology.nr_packages(), 2U);
    EXPECT_EQ(m.topology.nr_l3(), 4U);
    EXPECT_EQ(m.topology.nr_cpus(), 16U);
    EXPECT_EQ(m.topology.spec().hw_id, HwIdScheme::mpidr_flat);
    EXPECT_EQ(m.tlb.nr_dyn_asids, 0U);
    EXPECT_EQ(text.find("nr_dyn_asids"), std::string::npos);
    EXPECT_EQ(text.find("invpcid"), std::string::npos);
    EXPECT_EQ(text.find("rdmsr_qm_ctr"), std::string::npos);
    EXPECT_NE(text.find("tlbi_is"), std::string::npos);
}

TEST(Machine, hwloc_import_keeps_a_cpu_model_name_with_quotes_and_backslashes) {
    // Regression: a quote in the CPU model name used to break the TOML string.
    const std::string text = import_hwloc_xml(kHwloc + "/arm64_2_packages.xml");
    const MachineSpec m = load_machine(config::Document::parse(text, "arm.toml"), "arm");
    EXPECT_EQ(m.description, "Kunpeng \"920\" \\ test (hwloc import, costs are placeholders)");
}

TEST(Machine, every_cost_of_an_imported_skeleton_is_a_marked_placeholder) {
    for (const char* xml : {"two_packages.xml", "epyc_vm_2cpu.xml", "arm64_2_packages.xml"}) {
        SCOPED_TRACE(xml);
        const std::string text = import_hwloc_xml(kHwloc + "/" + xml);
        EXPECT_EQ(text.find("../shared"), std::string::npos);
        const MachineSpec m = load_machine(config::Document::parse(text, "i.toml"), "i");
        ASSERT_GT(m.costs.size(), 25U);
        for (const config::CostValue& c : m.costs) {
            SCOPED_TRACE(c.key);
            if (c.key == "intc.params.fence" && m.vendor == Vendor::amd) {
                EXPECT_EQ(c.provenance.mark, config::Mark::P);  // weak_wrmsr_fence is a no-op on AMD
                EXPECT_EQ(c.value, 0);
                continue;
            }
            EXPECT_EQ(c.provenance.mark, config::Mark::A);
            EXPECT_EQ(c.provenance.source, "TODO: measure with ipisim probe");
            ASSERT_TRUE(c.provenance.range.has_value());
            EXPECT_LE(c.provenance.range->lo, c.value);
            EXPECT_GE(c.provenance.range->hi, c.value);
        }
    }
}

TEST(Machine, hwloc_import_of_a_missing_or_broken_file_is_a_config_error) {
    EXPECT_THROW(import_hwloc_xml(kHwloc + "/does_not_exist.xml"), config::ConfigError);
    EXPECT_THROW(import_hwloc_xml(kHwloc + "/not_xml.xml"), config::ConfigError);
}

}  // namespace
}  // namespace ipisim::hw
