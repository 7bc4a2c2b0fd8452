#include "probe/host_schema.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "hw/topology.h"

namespace ipisim::probe {

namespace {

using config::Schema;
using sim::Picos;

struct Root {
    std::string description;
    std::string arch;
    std::string vendor;
    sim::ClockDomain clock;
};
const Schema<Root>& root_schema() {
    static const auto s =
        Schema<Root>("host", "probe-written machine file: top level")
            .param("description", &Root::description, "what the machine is")
            .choice("arch", &Root::arch, {{"x86", std::string("x86")}, {"arm64", std::string("arm64")}}, "ISA")
            .sets("x86", [](const Root& r) { return r.arch == "x86"; })
            .sets("arm64", [](const Root& r) { return r.arch == "arm64"; })
            .choice("vendor", &Root::vendor,
                    {{"intel", std::string("intel")},
                     {"amd", std::string("amd")},
                     {"hisilicon", std::string("hisilicon")},
                     {"generic", std::string("generic")}},
                    "CPU vendor")
            .param("clock", &Root::clock, "core clock")
            .cost();
    return s;
}

struct Coherence {
    Picos l1_hit, memory_local, line_occupancy;
    std::optional<Picos> smt, same_l3, same_die, same_package, cross_package, remote_home_extra, memory_remote;
};
const Schema<Coherence>& coherence_schema() {
    static const auto s = Schema<Coherence>("host.coherence", "cache-line transfers")
                              .param("l1_hit", &Coherence::l1_hit, "L1 hit")
                              .cost()
                              .param("smt", &Coherence::smt, "SMT sibling transfer")
                              .cost()
                              .param("same_l3", &Coherence::same_l3, "same-L3 transfer")
                              .cost()
                              .param("same_die", &Coherence::same_die, "same-die transfer")
                              .cost()
                              .param("same_package", &Coherence::same_package, "same-package transfer")
                              .cost()
                              .param("cross_package", &Coherence::cross_package, "cross-package transfer")
                              .cost()
                              .param("remote_home_extra", &Coherence::remote_home_extra, "remote home extra")
                              .cost()
                              .param("memory_local", &Coherence::memory_local, "local DRAM")
                              .cost()
                              .param("memory_remote", &Coherence::memory_remote, "remote DRAM")
                              .cost()
                              .param("line_occupancy", &Coherence::line_occupancy, "occupancy per transaction")
                              .cost();
    return s;
}

struct Cpu {
    Picos irq_entry, irq_exit, eoi, context_switch, syscall, rdmsr, wrmsr, rdmsr_qm_ctr;
    std::optional<uint32_t> smt_throughput_percent;
};
const Schema<Cpu>& cpu_schema() {
    static const auto s = Schema<Cpu>("host.cpu", "CPU costs")
                              .param("irq_entry", &Cpu::irq_entry, "IRQ entry")
                              .cost()
                              .param("irq_exit", &Cpu::irq_exit, "IRQ exit")
                              .cost()
                              .param("eoi", &Cpu::eoi, "EOI")
                              .cost()
                              .param("context_switch", &Cpu::context_switch, "context switch")
                              .cost()
                              .param("syscall", &Cpu::syscall, "null syscall")
                              .cost()
                              .param("rdmsr", &Cpu::rdmsr, "RDMSR")
                              .cost()
                              .param("wrmsr", &Cpu::wrmsr, "WRMSR")
                              .cost()
                              .param("rdmsr_qm_ctr", &Cpu::rdmsr_qm_ctr, "RDMSR IA32_QM_CTR")
                              .cost()
                              .param("smt_throughput_percent", &Cpu::smt_throughput_percent, "SMT throughput")
                              .cost()
                              .at_least(1)
                              .at_most(100);
    return s;
}

struct Idle {
    std::string name;
    Picos exit_latency, target_residency;
    bool polling = false;
};
const Schema<Idle>& idle_schema() {
    static const auto s = Schema<Idle>("host.idle", "one idle state")
                              .param("name", &Idle::name, "state name")
                              .param("exit_latency", &Idle::exit_latency, "exit latency")
                              .cost()
                              .param("target_residency", &Idle::target_residency, "target residency")
                              .cost()
                              .param("polling", &Idle::polling, "polls instead of halting");
    return s;
}

struct Intc {
    std::string kind;
};
const Schema<Intc>& intc_schema() {
    static const auto s = Schema<Intc>("host.intc", "interrupt controller")
                              .choice("kind", &Intc::kind,
                                      {{"x2apic_phys", std::string("x2apic_phys")},
                                       {"x2apic_cluster", std::string("x2apic_cluster")},
                                       {"xapic_mmio", std::string("xapic_mmio")},
                                       {"gicv3", std::string("gicv3")}},
                                      "controller");
    return s;
}

struct IntcParams {
    Picos icr_write, fence, icr_read, icr_busy, icr_busy_per_inflight, sgi1r_write, dsb_st, dsb_ishst, isb;
};
const Schema<IntcParams>& intc_params_schema() {
    static const auto s = Schema<IntcParams>("host.intc.params", "send-path costs")
                              .param("icr_write", &IntcParams::icr_write, "ICR write")
                              .cost()
                              .when("apic")
                              .param("fence", &IntcParams::fence, "weak_wrmsr_fence")
                              .cost()
                              .when("x2apic")
                              .param("icr_read", &IntcParams::icr_read, "ICR read")
                              .cost()
                              .when("xapic")
                              .param("icr_busy", &IntcParams::icr_busy, "ICR busy")
                              .cost()
                              .when("xapic")
                              .param("icr_busy_per_inflight", &IntcParams::icr_busy_per_inflight, "busy per in flight")
                              .cost()
                              .when("xapic")
                              .param("sgi1r_write", &IntcParams::sgi1r_write, "SGI1R write")
                              .cost()
                              .when("gic")
                              .param("dsb_st", &IntcParams::dsb_st, "dsb st")
                              .cost()
                              .when("gic")
                              .param("dsb_ishst", &IntcParams::dsb_ishst, "dsb ishst")
                              .cost()
                              .when("gic")
                              .param("isb", &IntcParams::isb, "isb")
                              .cost()
                              .when("gic");
    return s;
}

struct Fabric {
    Picos self, accept;
    std::optional<Picos> smt, same_l3, same_die, same_package, cross_package;
    uint32_t capacity = 0;
};
const Schema<Fabric>& fabric_schema() {
    static const auto s = Schema<Fabric>("host.intc.fabric", "delivery fabric")
                              .param("self", &Fabric::self, "self-IPI delivery")
                              .cost()
                              .param("smt", &Fabric::smt, "SMT delivery")
                              .cost()
                              .param("same_l3", &Fabric::same_l3, "same-L3 delivery")
                              .cost()
                              .param("same_die", &Fabric::same_die, "same-die delivery")
                              .cost()
                              .param("same_package", &Fabric::same_package, "same-package delivery")
                              .cost()
                              .param("cross_package", &Fabric::cross_package, "cross-package delivery")
                              .cost()
                              .param("capacity", &Fabric::capacity, "messages in flight")
                              .cost()
                              .at_least(1)
                              .param("accept", &Fabric::accept, "accept one message")
                              .cost();
    return s;
}

struct Tlb {
    uint32_t entries = 0;
    Picos invlpg, full_flush, invpcid_addr, invpcid_all, refill_per_entry, invlpgb_issue, tlbsync, rar_per_payload,
        tlbi_is, dsb_ish;
    bool pcid = false;
    uint32_t nr_dyn_asids = 0, invlpgb_count_max = 0, rar_payloads = 0;
};
const Schema<Tlb>& tlb_schema() {
    static const auto s = Schema<Tlb>("host.tlb", "TLB")
                              .param("entries", &Tlb::entries, "entries")
                              .cost()
                              .at_least(1)
                              .param("invlpg", &Tlb::invlpg, "INVLPG")
                              .cost()
                              .param("full_flush", &Tlb::full_flush, "CR3 reload")
                              .cost()
                              .param("invpcid_addr", &Tlb::invpcid_addr, "INVPCID address")
                              .cost()
                              .when("x86")
                              .param("invpcid_all", &Tlb::invpcid_all, "INVPCID all")
                              .cost()
                              .when("x86")
                              .param("refill_per_entry", &Tlb::refill_per_entry, "refill")
                              .cost()
                              .param("pcid", &Tlb::pcid, "PCID/ASID tagging")
                              .param("nr_dyn_asids", &Tlb::nr_dyn_asids, "TLB_NR_DYN_ASIDS")
                              .when("x86")
                              .at_least(1)
                              .at_most(4096)
                              .param("invlpgb_count_max", &Tlb::invlpgb_count_max, "INVLPGB pages")
                              .when("x86")
                              .sets("invlpgb", [](const Tlb& t) { return t.invlpgb_count_max > 0; })
                              .param("invlpgb_issue", &Tlb::invlpgb_issue, "INVLPGB issue")
                              .cost()
                              .when("invlpgb")
                              .param("tlbsync", &Tlb::tlbsync, "TLBSYNC")
                              .cost()
                              .when("invlpgb")
                              .param("rar_payloads", &Tlb::rar_payloads, "RAR payloads")
                              .when("x86")
                              .at_most(256)
                              .sets("rar", [](const Tlb& t) { return t.rar_payloads > 0; })
                              .param("rar_per_payload", &Tlb::rar_per_payload, "RAR per payload")
                              .cost()
                              .when("rar")
                              .param("tlbi_is", &Tlb::tlbi_is, "TLBI IS")
                              .cost()
                              .when("arm64")
                              .param("dsb_ish", &Tlb::dsb_ish, "DSB ISH")
                              .cost()
                              .when("arm64");
    return s;
}

}  // namespace

config::CostRecord check_host_file(const config::Document& doc) {
    config::CostRecord costs;
    config::Table root = doc.root();
    config::Conditions cond;
    Root top;
    root_schema().read_keys(root, top, cond, &costs);
    const bool x86 = top.arch == "x86";
    cond["invlpgb"] = false;
    cond["rar"] = false;
    hw::parse_topology(root.table("topology"), x86);

    Coherence coherence;
    coherence_schema().read_into(root.table("coherence"), coherence, cond, &costs);
    Cpu cpu;
    cpu_schema().read_into(root.table("cpu"), cpu, cond, &costs);
    for (config::Table t : root.table_array("idle")) {
        Idle idle;
        idle_schema().read_into(t, idle, cond, &costs);
    }

    config::Table intc = root.table("intc");
    Intc kind;
    intc_schema().read_keys(intc, kind, cond, &costs);
    config::Conditions send = cond;
    send["x2apic"] = kind.kind == "x2apic_phys" || kind.kind == "x2apic_cluster";
    send["xapic"] = kind.kind == "xapic_mmio";
    send["apic"] = send["x2apic"] || send["xapic"];
    send["gic"] = kind.kind == "gicv3";
    IntcParams params;
    intc_params_schema().read_into(intc.table("params"), params, send, &costs);
    Fabric fabric;
    fabric_schema().read_into(intc.table("fabric"), fabric, cond, &costs);
    intc.finish();

    Tlb tlb;
    tlb_schema().read_into(root.table("tlb"), tlb, cond, &costs);
    root.finish();

    for (const config::CostValue& c : costs) {
        if (c.provenance.mark == config::Mark::unmarked) {
            throw config::ConfigError(c.file, c.line, c.key, "a probe-written cost must carry its mark (P or A)");
        }
    }
    return costs;
}

}  // namespace ipisim::probe
