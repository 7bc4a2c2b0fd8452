// A machine profile (machines/NAME.toml): topology, clock, cache-line transfer latencies, CPU
// costs, idle states, interrupt controller and TLB parameters. Every number in a shipped file
// cites its source in a comment; [A] marks an assumption. Loading is strict: unknown keys,
// missing keys, wrong types and durations without units are ConfigErrors naming FILE:LINE: key.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "config/table.h"
#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::hw {

enum class Arch : uint8_t { x86, arm64 };
enum class Vendor : uint8_t { intel, amd, hisilicon, generic };

// One value per distance class (self .. cross_package). Classes that cannot occur on the
// machine (smt without SMT, cross_package on one socket) may be left out of the file: zero.
class DistanceTable {
public:
    [[nodiscard]] sim::Picos at(DistanceClass c) const { return v_[static_cast<size_t>(c)]; }
    sim::Picos& at(DistanceClass c) { return v_[static_cast<size_t>(c)]; }

private:
    std::array<sim::Picos, kDistanceClasses> v_{};
};

// [coherence]: one-way cache-line transfer between CPUs (CAS ping-pong RTT/2).
struct CoherenceSpec {
    sim::Picos l1_hit;       // load hitting the own L1 (also the `self` transfer)
    DistanceTable transfer;  // owner -> requester, by distance class
    // Extra one-way cost when the line's home node is in another package than the CPU that
    // owns it (Milan: 108 -> 200 ns same-socket; Skylake-SP: 112 writer-homed -> 176 ns
    // reader-homed cross-socket).
    sim::Picos remote_home_extra;
    sim::Picos memory_local;    // line cached nowhere, home node in the requester's package
    sim::Picos memory_remote;   // line cached nowhere, home node in another package
    sim::Picos line_occupancy;  // time a line is busy per transaction (serializes requests)
};

// [cpu]: costs of kernel-entry-level operations on one CPU.
struct CpuSpec {
    sim::Picos irq_entry;       // IDT/exception vectoring + entry code up to the handler
    sim::Picos irq_exit;        // irq_exit checks + return
    sim::Picos eoi;             // x2APIC: WRMSR; xAPIC: MMIO write; GICv3: ICC_EOIR1_EL1 write
    sim::Picos context_switch;  // CFS switch between two threads
    sim::Picos syscall;         // null syscall round trip
    sim::Picos rdmsr;           // e.g. APERF/MPERF, IA32_QM_CTR
    sim::Picos wrmsr;           // non-ICR MSR write (e.g. PQR_ASSOC)
    sim::Picos rdmsr_qm_ctr;    // RDMSR IA32_QM_CTR (resctrl counter read; slow, Newman 2023)
    // Speed of each of two busy SMT siblings relative to a lone thread, in percent.
    uint32_t smt_throughput_percent = 100;
};

// One [[idle]] state, shallowest first.
struct IdleState {
    std::string name;
    sim::Picos exit_latency;
    sim::Picos target_residency;
    bool polling = false;  // POLL / idle=poll: monitors its flag, needs no IPI to wake
};

enum class IntcKind : uint8_t { x2apic_phys, x2apic_cluster, xapic_mmio, gicv3 };
std::string_view to_string(IntcKind k);

// [intc]: the interrupt controller, its send-path costs ([intc.params]) and the delivery
// fabric ([intc.fabric]). Costs that do not apply to the kind are zero.
struct IntcSpec {
    IntcKind kind = IntcKind::x2apic_phys;
    // x2APIC / xAPIC
    sim::Picos icr_write;              // one ICR WRMSR (x2APIC) or one ICR/ICR2 MMIO write (xAPIC)
    sim::Picos fence;                  // weak_wrmsr_fence (mfence; lfence) once per send; 0 on AMD
    sim::Picos icr_read;               // xAPIC: one MMIO read of ICR while waiting for idle
    sim::Picos icr_busy;               // xAPIC: ICR delivery-status busy time after a send
    sim::Picos icr_busy_per_inflight;  // xAPIC: extra busy time per IPI already in flight
    // xAPIC: a RAR-mode send (APIC_DM_RAR = 0x300, the old remote-read encoding) is a round
    // trip (docs/mechanisms.md §3.5): the target's local APIC takes it only while its RAR
    // microcode is not processing, and the sender's ICR stays busy until the target's reply
    // is back, rar_reply after acceptance. Off: a RAR send is busy like a fixed one.
    bool rar_round_trip = false;
    sim::Picos rar_reply;
    // GICv3
    sim::Picos sgi1r_write;  // one ICC_SGI1R_EL1 write (one <=16-CPU group)
    sim::Picos dsb_st;       // full-system store barrier (wmb(), before Barry Song's 2022 patch)
    sim::Picos dsb_ishst;    // inner-shareable store barrier (current gic_ipi_send_mask)
    sim::Picos isb;          // after the SGI1R writes
    // Fabric: send -> target's interrupt pending, by distance class; at most `capacity`
    // messages in flight machine-wide (further sends wait).
    DistanceTable delivery;
    uint32_t capacity = 0;
    // Time a target's controller (local APIC, GIC redistributor) takes to accept one message;
    // a burst of messages to one target is spaced by it.
    sim::Picos accept;
    // Occupancy of the package's interrupt router (Intel: the Ubox) per message: every
    // message its sender's package emits is routed by it, one at a time, FIFO
    // (docs/mechanisms.md §3.5). Zero: no router is modeled. At most every delivery latency.
    sim::Picos router_service;
};

// [tlb]: per-CPU TLB geometry and invalidation costs.
struct TlbSpec {
    uint32_t entries = 0;            // entries per CPU (second-level TLB)
    sim::Picos invlpg;               // one-page local flush (INVLPG / TLBI VALE1)
    sim::Picos full_flush;           // CR3 reload (without refill)
    sim::Picos invpcid_addr;         // INVPCID individual address (user PCID under PTI)
    sim::Picos invpcid_all;          // INVPCID all-context
    sim::Picos refill_per_entry;     // page walk per entry touched again after a flush
    bool pcid = false;               // PCID (x86) / ASID (arm64) tagging
    uint32_t nr_dyn_asids = 6;       // TLB_NR_DYN_ASIDS (x86 only; 0 on arm64)
    uint32_t invlpgb_count_max = 0;  // 0: no INVLPGB
    sim::Picos invlpgb_issue;
    sim::Picos tlbsync;
    uint32_t rar_payloads = 0;   // 0: no RAR
    sim::Picos rar_per_payload;  // target microcode per processed payload
    sim::Picos tlbi_is;          // arm64: issue of one broadcast TLBI ...IS
    sim::Picos dsb_ish;          // arm64: DSB ISH waiting for broadcast TLBIs to complete
};

struct MachineSpec {
    std::string name;  // file stem
    std::string description;
    std::string source_path;
    Arch arch = Arch::x86;
    Vendor vendor = Vendor::generic;
    sim::ClockDomain clock;
    Topology topology;
    CoherenceSpec coherence;
    CpuSpec cpu;
    std::vector<IdleState> idle;
    IntcSpec intc;
    TlbSpec tlb;
    config::Document document;  // the parsed file, kept alive for intc_params()

    // A fresh strict view of [intc.params] for the controller (keys already validated here).
    [[nodiscard]] config::Table intc_params() const;
};

MachineSpec load_machine(const std::string& path);
// From an already parsed (and possibly --set-overridden) document; `name` is the file stem.
MachineSpec load_machine(const config::Document& doc, const std::string& name);
// machines_dir/NAME.toml; an unknown name is a ConfigError listing the available machines.
MachineSpec load_machine_by_name(const std::string& machines_dir, const std::string& name);
// Stems of machines_dir/*.toml, sorted.
std::vector<std::string> list_machines(const std::string& machines_dir);

}  // namespace ipisim::hw
