// A machine profile (machines/NAME.toml): topology, clock, cache-line transfer latencies, CPU
// costs, idle states, interrupt controller and TLB parameters. Every section is declared once
// with config::Schema (hw/machine_schema.h): loading is strict (unknown, missing, mistyped or
// inapplicable keys and durations without units are ConfigErrors naming FILE:LINE: key), and
// each cost may carry its provenance inline:
//   same_l3 = { value = "22.7 ns", mark = "P", range = ["20 ns", "27 ns"], source = "..." }
// The spec keeps every cost's provenance (MachineSpec::costs) and write_machine() writes a
// complete, loadable machine file from it.
#pragma once

#include <toml++/toml.h>

#include <any>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/schema.h"
#include "config/table.h"
#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::hw {

enum class Arch : uint8_t { x86, arm64 };
enum class Vendor : uint8_t { intel, amd, hisilicon, generic };
// The machine-file names of the choices (the schema reads them; displays use them).
inline constexpr std::array<std::pair<std::string_view, Arch>, 2> kArchNames = {
    {{"x86", Arch::x86}, {"arm64", Arch::arm64}}};
inline constexpr std::array<std::pair<std::string_view, Vendor>, 4> kVendorNames = {
    {{"intel", Vendor::intel}, {"amd", Vendor::amd}, {"hisilicon", Vendor::hisilicon}, {"generic", Vendor::generic}}};
std::string_view to_string(Arch a);
std::string_view to_string(Vendor v);

// One value per distance class (self .. cross_package). Classes that cannot occur on the
// machine (smt without SMT, cross_package on one socket) are not in the file: zero.
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
    // reader-homed cross-socket). Zero on one package.
    sim::Picos remote_home_extra;
    sim::Picos memory_local;    // line cached nowhere, home node in the requester's package
    sim::Picos memory_remote;   // line cached nowhere, home node in another package (= local on one package)
    sim::Picos line_occupancy;  // time a line is busy per transaction (serializes requests)
    // L1D misses one CPU keeps in flight (Intel line fill buffers, AMD miss address buffers):
    // how many lines an out-of-order core fetches at once ahead of a loop of independent
    // loads (hw/coherence/read_ahead.h). 1: no memory-level parallelism.
    uint32_t fill_buffers = 1;
    // Store-buffer entries per CPU (hw/coherence/store_buffer.h): stores wait in a FIFO to
    // become visible while later loads go ahead (x86-TSO). 0: none; a store waits for its line.
    uint32_t store_buffer = 0;
};

// [cpu]: costs of kernel-entry-level operations on one CPU.
struct CpuSpec {
    sim::Picos irq_entry;  // IDT/exception vectoring + entry code up to the handler
    sim::Picos irq_exit;   // irq_exit checks + return
    sim::Picos eoi;        // x2APIC: WRMSR; xAPIC: MMIO write; GICv3: ICC_EOIR1_EL1 write
    // Indirect cost of an interrupt to the code it interrupted (pipeline refill, cache, TLB and
    // branch-predictor state evicted by the handler): paid once, when that code runs again
    // after the interrupt, or a burst of them (Cpu::take_irq, docs/mechanisms.md §4.4).
    sim::Picos irq_pollution;
    sim::Picos context_switch;  // CFS switch between two threads
    sim::Picos syscall;         // null syscall round trip
    // x86: the part of an anonymous page fault's handle_mm_fault() not itemized in
    // kernel/mm/mm_costs.h (the __handle_mm_fault walk, pte_offset_map_lock, accounting, events):
    // a per-machine cost because it is what a fit to a machine's own fault time moves.
    sim::Picos handle_mm_fault;
    sim::Picos rdmsr;         // e.g. APERF/MPERF (arm64: a system-register read)
    sim::Picos wrmsr;         // non-ICR MSR write (e.g. PQR_ASSOC)
    sim::Picos rdmsr_qm_ctr;  // x86: RDMSR IA32_QM_CTR (resctrl counter read; slow, Newman 2023)
    // Speed of each of two busy SMT siblings relative to a lone thread, in percent.
    uint32_t smt_throughput_percent = 100;
};

enum class IdleMechanism : uint8_t { poll, mwait, hlt, ioport, wfi, psci };
inline constexpr std::array<std::pair<std::string_view, IdleMechanism>, 6> kIdleMechanismNames = {{
    {"poll", IdleMechanism::poll},
    {"mwait", IdleMechanism::mwait},
    {"hlt", IdleMechanism::hlt},
    {"ioport", IdleMechanism::ioport},
    {"wfi", IdleMechanism::wfi},
    {"psci", IdleMechanism::psci},
}};
// "poll", "mwait", ...; and whether the mechanism exists on `arch` (poll on both).
std::string_view to_string(IdleMechanism m);
[[nodiscard]] bool exists_on(IdleMechanism m, Arch arch);

// One [[idle]] state, shallowest first.
struct IdleState {
    std::string name;
    // The declared worst-case exit latency (intel_idle tables, ACPI _CST, PSCI): what the
    // cpuidle governor plans with (drivers/cpuidle/governors/menu.c menu_select() compares it
    // to the PM QoS latency limit), not the time a wake takes.
    sim::Picos exit_latency;
    sim::Picos target_residency;
    // The time from the wake event (interrupt, RAR, monitored write) until the core executes
    // again: what a wake costs. At most exit_latency (docs/calibration.md, idle rows).
    sim::Picos wake_latency;
    // How the CPU waits (docs/mechanisms.md §1.11):
    //   poll   - a software loop on the thread flags (drivers/cpuidle/poll_state.c poll_idle);
    //            the governor's CPUIDLE_FLAG_POLLING state, first state only
    //   mwait  - x86 MONITOR/MWAIT on the thread flags (mwait_idle_with_hints, used by
    //            intel_idle and by acpi_idle's FFH states): a C-state that a write to the
    //            monitored flags line ends, as an interrupt does
    //   hlt    - x86 HLT (default_idle, acpi_idle's HALT states); only an interrupt wakes it
    //   ioport - x86 acpi_idle SystemIO entry (an I/O-port read); only an interrupt wakes it
    //   wfi    - arm64 WFI (cpu_do_idle); only an interrupt wakes it
    //   psci   - arm64 PSCI CPU_SUSPEND (psci_cpu_suspend_enter); only an interrupt wakes it
    IdleMechanism mechanism = IdleMechanism::hlt;

    // The CPU watches its thread flags while in the state (TIF_POLLING_NRFLAG stays set):
    // set_nr_if_polling() wakes it without an IPI.
    [[nodiscard]] bool monitors_flags() const {
        return mechanism == IdleMechanism::poll || mechanism == IdleMechanism::mwait;
    }
    // A software busy loop (CPUIDLE_FLAG_POLLING): the core keeps running, no hardware exit.
    [[nodiscard]] bool software_poll() const { return mechanism == IdleMechanism::poll; }
};

// [intc]: the interrupt controller (`kind`, a registered controller: hw/intc/intc_type.h), its
// own parameters ([intc.params], read by its registration) and the delivery fabric common to
// every controller ([intc.fabric]).
struct IntcSpec {
    std::string kind;
    std::any params;  // the controller's parameter struct: intc_params<P>(spec)
    // Fabric: send -> target's interrupt pending, by distance class; at most `capacity`
    // messages in flight machine-wide (further sends wait).
    DistanceTable delivery;
    uint32_t capacity = 0;
    // Time a target's controller (local APIC, GIC redistributor) takes to accept one message;
    // a burst of messages to one target is spaced by it.
    sim::Picos accept;
    // Occupancy of the package's interrupt router (Intel: the Ubox) per message: every
    // message a CPU of the package sends is routed by it, one at a time, FIFO
    // (hw/intc/interrupt_router.h, docs/mechanisms.md §3.5). Zero: no router is modeled. At
    // most every delivery latency (which includes it).
    sim::Picos router_service;
};

// [tlb]: per-CPU TLB geometry and invalidation costs.
struct TlbSpec {
    uint32_t entries = 0;            // entries per CPU (second-level TLB)
    sim::Picos invlpg;               // one-page local flush (INVLPG / TLBI VALE1)
    sim::Picos full_flush;           // CR3 reload (without refill)
    sim::Picos invpcid_addr;         // x86: INVPCID individual address (user PCID under PTI)
    sim::Picos invpcid_all;          // x86: INVPCID all-context
    sim::Picos refill_per_entry;     // page walk per entry touched again after a flush
    bool pcid = false;               // PCID (x86) / ASID (arm64) tagging
    uint32_t nr_dyn_asids = 6;       // TLB_NR_DYN_ASIDS (x86 only; 0 on arm64)
    uint32_t invlpgb_count_max = 0;  // 0: no INVLPGB
    sim::Picos invlpgb_issue;
    sim::Picos tlbsync;
    uint32_t rar_payloads = 0;   // 0: no RAR
    sim::Picos rar_per_payload;  // target microcode per processed payload
    sim::Picos rar_entry;        // target: the core's pipeline given to the microcode and back, per processing
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
    // Every cost as read: dotted key ("coherence.same_l3", "idle[1].exit_latency"), value,
    // provenance (mark, range, source), file and line. A value from --set is Mark::set.
    config::CostRecord costs;

    // The cost recorded under `key`, or nullptr.
    [[nodiscard]] const config::CostValue* cost(std::string_view key) const;
};

MachineSpec load_machine(const std::string& path);
// From an already parsed (and possibly --set-overridden) document; `name` is the file stem.
MachineSpec load_machine(const config::Document& doc, const std::string& name);
// machines_dir/NAME.toml; an unknown name is a ConfigError listing the available machines.
MachineSpec load_machine_by_name(const std::string& machines_dir, const std::string& name);
// Stems of machines_dir/*.toml, sorted.
std::vector<std::string> list_machines(const std::string& machines_dir);

// A complete machine file for the spec (every applicable value, costs with their provenance):
// load_machine() of its text (config::to_toml_text) gives the same spec.
toml::table write_machine(const MachineSpec& spec);

}  // namespace ipisim::hw
