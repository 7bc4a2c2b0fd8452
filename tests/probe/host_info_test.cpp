// Host facts from /proc/cpuinfo and dmesg text, and the interrupt-controller mode they imply.
#include "probe/host_info.h"
#include "support/scratch_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ipisim::probe {
namespace {

TEST(ProbeHostInfo, cpuinfo_is_read_from_the_first_processor) {
    HostInfo i;
    parse_cpuinfo(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.402\n"
        "flags\t\t: fpu x2apic hypervisor pcid\n\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: sse\n",
        i);
    EXPECT_EQ(i.vendor_id, "AuthenticAMD");
    EXPECT_EQ(i.model_name, "AMD EPYC");
    EXPECT_DOUBLE_EQ(i.reported_mhz, 2445.402);
    EXPECT_TRUE(i.has_flag("x2apic"));
    EXPECT_TRUE(i.has_flag("pcid"));
    EXPECT_FALSE(i.has_flag("sse"));
    EXPECT_TRUE(i.virtualized());  // the hypervisor flag alone says so
}

TEST(ProbeHostInfo, dmesg_gives_the_apic_routing_and_the_paravirtual_hooks) {
    HostInfo i;
    parse_dmesg(
        "[    0.051631] kvm-guest: KVM setup pv remote TLB flush\n"
        "[    0.145617] APIC: Switched APIC routing to: physical x2apic\n"
        "[    0.145621] kvm-guest: APIC: send_IPI_mask() replaced with kvm_send_ipi_mask()\n",
        i);
    EXPECT_EQ(i.apic_routing, "physical x2apic");
    EXPECT_TRUE(i.pv_send_ipi);
    EXPECT_TRUE(i.pv_tlb_flush);
}

TEST(ProbeHostInfo, older_kernels_word_the_routing_line_without_a_colon) {
    HostInfo i;
    parse_dmesg("[    0.000000] Switched APIC routing to cluster x2apic.\n", i);
    EXPECT_EQ(i.apic_routing, "cluster x2apic");
}

TEST(ProbeHostInfo, the_routing_line_decides_the_controller_kind) {
    std::string why;
    HostInfo i;
    i.apic_routing = "physical x2apic";
    EXPECT_EQ(intc_kind(i, &why), "x2apic_phys");
    i.apic_routing = "cluster x2apic";
    EXPECT_EQ(intc_kind(i, &why), "x2apic_cluster");
    i.apic_routing = "physical flat";
    EXPECT_EQ(intc_kind(i, &why), "xapic_mmio");
}

TEST(ProbeHostInfo, without_dmesg_the_x2apic_flag_means_cluster_mode_and_says_it_assumed_so) {
    std::string why;
    HostInfo i;
    i.flags.insert("x2apic");
    EXPECT_EQ(intc_kind(i, &why), "x2apic_cluster");
    EXPECT_NE(why.find("assumed"), std::string::npos);
    EXPECT_EQ(intc_kind(HostInfo{}, &why), "xapic_mmio");
}

TEST(ProbeHostInfo, only_active_mitigations_are_listed_sorted_by_vulnerability) {
    namespace fs = std::filesystem;
    const fs::path dir = ::ipisim::test::scratch_path("ipisim-vulnerabilities-test");
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "spectre_v2") << "Mitigation: Retpolines; IBPB: conditional\n";
    std::ofstream(dir / "meltdown") << "Not affected\n";
    std::ofstream(dir / "spec_rstack_overflow") << "Mitigation: Safe RET\n";
    const std::vector<std::string> m = read_mitigations(dir.string());
    ASSERT_EQ(m.size(), 2U);
    EXPECT_EQ(m[0], "spec_rstack_overflow: Mitigation: Safe RET");
    EXPECT_EQ(m[1], "spectre_v2: Mitigation: Retpolines; IBPB: conditional");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ipisim::probe
