#include "hw/machine_schema.h"

#include <fmt/format.h>

#include "hw/intc/intc_type.h"

namespace ipisim::hw {

namespace {

// One cost per distance class other than self, each where its class occurs.
template <class K>
void distance_params(config::Schema<K>& s, const char* what) {
    s.param("smt", &K::smt, fmt::format("{} between SMT siblings of one core", what))
        .cost()
        .when(distance_condition(DistanceClass::smt));
    s.param("same_l3", &K::same_l3, fmt::format("{} between cores sharing one L3 (CCX, cluster)", what))
        .cost()
        .when(distance_condition(DistanceClass::same_l3));
    s.param("same_die", &K::same_die, fmt::format("{} between L3 domains of one die", what))
        .cost()
        .when(distance_condition(DistanceClass::same_die));
    s.param("same_package", &K::same_package, fmt::format("{} between dies (CCDs, SCCLs) of one package", what))
        .cost()
        .when(distance_condition(DistanceClass::same_package));
    s.param("cross_package", &K::cross_package, fmt::format("{} between packages (sockets)", what))
        .cost()
        .when(distance_condition(DistanceClass::cross_package));
}

}  // namespace

const config::Schema<MachineSpec>& machine_root_schema() {
    static const auto s = [] {
        config::Schema<MachineSpec> m("machine", "a machine profile: machines/NAME.toml (top-level keys)");
        m.param("description", &MachineSpec::description, "what machine this is, in one line");
        m.choice("arch", &MachineSpec::arch, named_choices(kArchNames), "instruction-set architecture");
        m.choice("vendor", &MachineSpec::vendor, named_choices(kVendorNames),
                 "CPU vendor (x86 costs such as the fence differ)")
            .check([](const MachineSpec& spec) -> std::string {
                if ((spec.vendor == Vendor::intel || spec.vendor == Vendor::amd) && spec.arch != Arch::x86) {
                    return "intel and amd machines are x86";
                }
                if (spec.vendor == Vendor::hisilicon && spec.arch != Arch::arm64) return "hisilicon machines are arm64";
                return "";
            });
        m.param("clock", &MachineSpec::clock, "core clock: converts kernel costs in cycles to time")
            .cost()
            .check([](const MachineSpec& spec) -> std::string {
                return spec.clock.khz() == 0 ? "must be above 0 Hz" : "";
            });
        return m;
    }();
    return s;
}

const config::Schema<CoherenceKeys>& coherence_schema() {
    static const auto s = [] {
        config::Schema<CoherenceKeys> c("machine.coherence",
                                        "[coherence]: one-way cache-line transfer (CAS ping-pong RTT/2) and memory");
        c.param("l1_hit", &CoherenceKeys::l1_hit, "load hitting the own L1 (also the transfer to oneself)").cost();
        distance_params(c, "transfer of a line");
        c.param("remote_home_extra", &CoherenceKeys::remote_home_extra,
                "extra one-way cost when the line's home node is in another package than its owner")
            .cost()
            .when(cond::multi_package);
        c.param("memory_local", &CoherenceKeys::memory_local, "miss to memory homed in the requester's package").cost();
        c.param("memory_remote", &CoherenceKeys::memory_remote, "miss to memory homed in another package")
            .cost()
            .when(cond::multi_package);
        c.param("line_occupancy", &CoherenceKeys::line_occupancy,
                "time a line is busy per transaction (serializes requests to it)")
            .cost();
        c.param("fill_buffers", &CoherenceKeys::fill_buffers,
                "L1D misses one CPU keeps in flight (line fill buffers): lines fetched at once ahead of a loop of "
                "independent loads; 1: none ahead")
            .at_least(1)
            .at_most(64)
            .cost();
        c.param("store_buffer", &CoherenceKeys::store_buffer,
                "store-buffer entries per CPU: a store waits there to become visible while later loads go ahead "
                "(x86-TSO); locked RMWs, fences and serializing instructions wait for it to drain; 0: none, a "
                "store waits for its line (also when the key is absent: machine files written before it)")
            .def(0U)
            .at_most(512)
            .cost();
        return c;
    }();
    return s;
}

const config::Schema<CpuSpec>& cpu_schema() {
    static const auto s = [] {
        config::Schema<CpuSpec> c("machine.cpu", "[cpu]: costs of kernel-entry-level operations on one CPU");
        c.param("irq_entry", &CpuSpec::irq_entry, "interrupt vectoring and entry code up to the handler").cost();
        c.param("irq_exit", &CpuSpec::irq_exit, "irq_exit checks and return").cost();
        c.param("eoi", &CpuSpec::eoi, "end of interrupt (x2APIC WRMSR, xAPIC MMIO write, ICC_EOIR1_EL1)").cost();
        c.param("irq_pollution", &CpuSpec::irq_pollution,
                "indirect cost to the interrupted code of one interrupt (or burst): cache, TLB and pipeline refill")
            .cost();
        c.param("context_switch", &CpuSpec::context_switch, "CFS switch between two threads").cost();
        c.param("syscall", &CpuSpec::syscall, "null system call round trip").cost();
        c.param("handle_mm_fault", &CpuSpec::handle_mm_fault,
                "anonymous page fault: handle_mm_fault() besides the itemized parts (walk, PTE lock, accounting)")
            .cost()
            .when(cond::x86);
        c.param("rdmsr", &CpuSpec::rdmsr, "one MSR read, e.g. APERF/MPERF (arm64: a system-register read)").cost();
        c.param("wrmsr", &CpuSpec::wrmsr, "one non-ICR MSR write, e.g. PQR_ASSOC (arm64: a system-register write)")
            .cost();
        c.param("rdmsr_qm_ctr", &CpuSpec::rdmsr_qm_ctr, "RDMSR IA32_QM_CTR (resctrl monitoring counter read)")
            .cost()
            .when(cond::x86);
        c.param("smt_throughput_percent", &CpuSpec::smt_throughput_percent,
                "speed of each of two busy SMT siblings relative to a lone thread, percent")
            .at_least(1)
            .at_most(100)
            .cost()
            .when(distance_condition(DistanceClass::smt));
        return c;
    }();
    return s;
}

const config::Schema<IdleState>& idle_schema() {
    static const auto s = [] {
        config::Schema<IdleState> i("machine.idle", "[[idle]]: the cpuidle states, shallowest first");
        i.param("name", &IdleState::name, "state name (POLL, C1, WFI, ...)");
        i.param("exit_latency", &IdleState::exit_latency,
                "declared worst-case exit latency: the bound the cpuidle governor plans with")
            .cost();
        i.param("target_residency", &IdleState::target_residency, "minimum stay the governor plans for").cost();
        i.param("wake_latency", &IdleState::wake_latency,
                "time a wake-up out of the state takes until the core runs again (at most exit_latency)")
            .cost();
        i.choice("mechanism", &IdleState::mechanism, named_choices(kIdleMechanismNames),
                 "how the CPU waits: poll (software loop, first state only), mwait (x86 MONITOR/MWAIT on the "
                 "thread flags: a write to them wakes it, no IPI), hlt, ioport (x86), wfi, psci (arm64)");
        return i;
    }();
    return s;
}

const config::Schema<IntcKeys>& intc_schema() {
    static const auto s = [] {
        config::Schema<IntcKeys> i("machine.intc", "[intc]: the interrupt controller");
        std::string kinds;
        for (const IntcType* t : intc_types()) {
            std::string archs;
            for (Arch a : t->archs) archs += fmt::format("{}{}", archs.empty() ? "" : ", ", to_string(a));
            kinds += fmt::format("{}{} ({})", kinds.empty() ? "" : ", ", t->name, archs);
        }
        i.param("kind", &IntcKeys::kind, fmt::format("a registered interrupt controller: {}", kinds))
            .check([](const IntcKeys& k) -> std::string {
                if (find_intc_type(k.kind) != nullptr) return "";
                return fmt::format("unknown interrupt controller \"{}\" (registered: {})", k.kind, intc_type_names());
            });
        return i;
    }();
    return s;
}

const config::Schema<FabricKeys>& fabric_schema() {
    static const auto s = [] {
        config::Schema<FabricKeys> f("machine.intc.fabric",
                                     "[intc.fabric]: the interrupt delivery fabric (send -> target pending)");
        f.param("self", &FabricKeys::self, "delivery of an interrupt to the sending CPU itself").cost();
        distance_params(f, "delivery of an interrupt message");
        f.param("capacity", &FabricKeys::capacity, "interrupt messages in flight machine-wide (further sends wait)")
            .cost()
            .check([](const FabricKeys& k) -> std::string {
                return k.capacity == 0 ? "must be at least 1 message in flight" : "";
            });
        f.param("accept", &FabricKeys::accept,
                "time a target's controller takes to accept one message (spaces a burst to one target)")
            .cost();
        f.param("router_service", &FabricKeys::router_service,
                "occupancy of the sender's package interrupt router per message (FIFO; part of every delivery "
                "latency); 0: no router")
            .cost();
        return f;
    }();
    return s;
}

const config::Schema<TlbSpec>& tlb_schema() {
    static const auto s = [] {
        config::Schema<TlbSpec> t("machine.tlb", "[tlb]: per-CPU TLB geometry and invalidation costs");
        t.param("entries", &TlbSpec::entries, "TLB entries per CPU (second-level TLB)").at_least(1).cost();
        t.param("invlpg", &TlbSpec::invlpg, "one-page local flush (INVLPG / TLBI VALE1)").cost();
        t.param("full_flush", &TlbSpec::full_flush, "full local flush (CR3 reload, TLBI ASIDE1), without refill")
            .cost();
        t.param("invpcid_addr", &TlbSpec::invpcid_addr, "INVPCID individual address (user PCID under PTI)")
            .cost()
            .when(cond::x86);
        t.param("invpcid_all", &TlbSpec::invpcid_all, "INVPCID all-context").cost().when(cond::x86);
        t.param("refill_per_entry", &TlbSpec::refill_per_entry, "page walk per entry touched again after a flush")
            .cost();
        t.param("pcid", &TlbSpec::pcid, "TLB entries are tagged with PCIDs (x86) / ASIDs (arm64)");
        t.param("nr_dyn_asids", &TlbSpec::nr_dyn_asids, "TLB_NR_DYN_ASIDS: dynamic PCIDs per CPU")
            .at_least(1)
            .at_most(4096)
            .when(cond::x86);
        t.param("invlpgb_count_max", &TlbSpec::invlpgb_count_max, "AMD INVLPGB pages per instruction; 0: no INVLPGB")
            .cost()
            .when(cond::x86)
            .sets(cond::invlpgb, [](const TlbSpec& v) { return v.invlpgb_count_max > 0; });
        t.param("invlpgb_issue", &TlbSpec::invlpgb_issue, "issue of one INVLPGB (asynchronous)")
            .cost()
            .when(cond::invlpgb);
        t.param("tlbsync", &TlbSpec::tlbsync, "TLBSYNC: wait for this CPU's INVLPGBs to complete everywhere")
            .cost()
            .when(cond::invlpgb);
        t.param("rar_payloads", &TlbSpec::rar_payloads, "Intel RAR payload slots (RAR_INFO); 0: no RAR")
            .at_most(256)
            .cost()
            .when(cond::x86)
            .sets(cond::rar, [](const TlbSpec& v) { return v.rar_payloads > 0; });
        t.param("rar_per_payload", &TlbSpec::rar_per_payload, "target microcode time per processed RAR payload")
            .cost()
            .when(cond::rar);
        t.param("rar_entry", &TlbSpec::rar_entry,
                "target: entering the RAR microcode and returning from it, once per processing (the running "
                "core's pipeline drained at an instruction boundary and refilled after)")
            .cost()
            .when(cond::rar);
        t.param("tlbi_is", &TlbSpec::tlbi_is, "issue of one broadcast TLBI ...IS").cost().when(cond::arm64);
        t.param("dsb_ish", &TlbSpec::dsb_ish, "DSB ISH: wait for the broadcast TLBIs to complete")
            .cost()
            .when(cond::arm64);
        return t;
    }();
    return s;
}

std::vector<config::SchemaInfo> machine_schema_infos() {
    std::vector<config::SchemaInfo> out = {machine_root_schema().info(), topology_schema().info(),
                                           coherence_schema().info(),    cpu_schema().info(),
                                           idle_schema().info(),         intc_schema().info()};
    for (const IntcType* t : intc_types()) {
        config::SchemaInfo p = t->params_info();
        p.name = fmt::format("machine.intc.params ({})", t->name);
        p.doc = t->description;
        out.push_back(std::move(p));
    }
    out.push_back(fabric_schema().info());
    out.push_back(tlb_schema().info());
    return out;
}

namespace {

const config::SchemaRegistration reg_root("machine", [] { return machine_root_schema().info(); });
const config::SchemaRegistration reg_topology("machine.topology", [] { return topology_schema().info(); });
const config::SchemaRegistration reg_coherence("machine.coherence", [] { return coherence_schema().info(); });
const config::SchemaRegistration reg_cpu("machine.cpu", [] { return cpu_schema().info(); });
const config::SchemaRegistration reg_idle("machine.idle", [] { return idle_schema().info(); });
const config::SchemaRegistration reg_intc("machine.intc", [] { return intc_schema().info(); });
const config::SchemaRegistration reg_fabric("machine.intc.fabric", [] { return fabric_schema().info(); });
const config::SchemaRegistration reg_tlb("machine.tlb", [] { return tlb_schema().info(); });

}  // namespace

}  // namespace ipisim::hw
