// Facts about the host that change cross-CPU costs, stated in the probe's output: the kernel
// version (uname), the CPU model and flags (/proc/cpuinfo), the interrupt-controller mode (the
// x2apic flag, and the kernel's "Switched APIC routing to" line when dmesg is readable), and
// whether it runs virtualized (CPUID leaf 1 ECX bit 31 and the hypervisor vendor leaf
// 0x40000000). In a KVM guest an IPI is a VM exit or a paravirtual hypercall, so it costs
// microseconds where bare metal takes hundreds of nanoseconds.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace ipisim::probe {

struct HostInfo {
    // uname
    std::string sysname;
    std::string release;  // "6.18.44-..."
    std::string version;
    std::string machine;  // "x86_64"
    // /proc/cpuinfo (first processor)
    std::string model_name;
    std::string vendor_id;    // "AuthenticAMD", "GenuineIntel"
    double reported_mhz = 0;  // "cpu MHz" (in a VM: what the hypervisor reports)
    std::set<std::string> flags;
    [[nodiscard]] bool has_flag(const std::string& f) const { return flags.count(f) != 0; }
    // dmesg
    bool dmesg_read = false;
    std::string dmesg_status;   // why it was not read, or "read"
    std::string apic_routing;   // "physical x2apic", "cluster x2apic", "physical flat", ...
    bool pv_send_ipi = false;   // "APIC: send_IPI_mask() replaced with kvm_send_ipi_mask()"
    bool pv_tlb_flush = false;  // "KVM setup pv remote TLB flush"
    // /sys/devices/system/cpu/vulnerabilities: the active mitigations ("spec_rstack_overflow:
    // Mitigation: Safe RET"); they lengthen every kernel entry and return.
    std::vector<std::string> mitigations;
    // CPUID
    bool cpuid_read = false;
    bool hypervisor_bit = false;
    std::string hypervisor_vendor;  // "KVMKVMKVM", "Microsoft Hv", ... ("" on bare metal)

    [[nodiscard]] bool virtualized() const { return hypervisor_bit || has_flag("hypervisor"); }
};

HostInfo read_host_info();
// The mitigation lines of a vulnerabilities directory (default the live one), sorted by name.
std::vector<std::string> read_mitigations(const std::string& dir = "/sys/devices/system/cpu/vulnerabilities");

// The parts, from text (tests).
void parse_cpuinfo(const std::string& text, HostInfo& info);
void parse_dmesg(const std::string& text, HostInfo& info);

// The machine-file [intc] kind this host uses: "x2apic_phys", "x2apic_cluster" or
// "xapic_mmio" (x86); *why says what it was decided from.
std::string intc_kind(const HostInfo& info, std::string* why);

}  // namespace ipisim::probe
