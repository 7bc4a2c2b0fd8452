// Intel RAR (Remote Action Request, docs/mechanisms.md 3.1): the payload table shared by all CPUs,
// one action vector per CPU, and each target's microcode that processes them.
//
// Memory layout (through the coherence model, so senders and microcode contend for lines):
//   * payload slot s: one line (64-byte struct rar_payload), homed on node 0 (the kernel's
//     static table). Its contents are kept here as plain data; the line is one SimVar, and
//     writing / reading a payload is one store / one load of it (the other words of the line
//     are L1 hits folded into that access).
//   * action vector of CPU c: one line homed on c's node, primed to c (it initialised it);
//     one byte per slot, eight slots per 64-bit SimVar. The sender's PENDING is the kernel's
//     byte store (Memory::store_bytes: a plain store, through the sender's store buffer); the
//     microcode's SUCCESS is a fetch_and of the byte, of a store's cost (it waits for the
//     target's older stores, as the microcode's writes, ordered after them, would): the model
//     never writes FAILURE, so the result is the byte store's.
//
// Sender side (smp_call_rar_many): write_payload(), set_action_pending() per target, send
// the RAR IPI (the interrupt controller, mode APIC_DM_RAR), then poll action_word() with
// Memory::spin_until until action_byte() is no longer PENDING.
//
// Target side: the fabric calls deliver(target, sender) at delivery. If the target's
// microcode is processing, a rescan is marked; otherwise it starts. Round trip (xAPIC
// rar_round_trip, docs/mechanisms.md §3.5; wired by hw::Platform): the target's local APIC
// accepts a RAR only while scanning(target) is false, so the fabric holds a RAR that finds
// the microcode scanning at the target's door, and the idle hook, called when the microcode
// stops, lets the next one in; the sender's ICR is busy until the reply to the acceptance
// (hw/intc/xapic_mmio.h). A RAR that arrives while the core wakes from a C-state for the
// first is accepted and latched as a rescan [A]. Processing: if the CPU
// sits in a non-polling C-state, first its wake latency; then the entry into the microcode,
// tlb.rar_entry, once per processing (the core stops at an instruction boundary, drains its
// pipeline and refills it after the microcode returns; a rescan is the same processing); then a
// scan loads the action vector
// words one by one and, for each PENDING slot, loads the payload line, works
// tlb.rar_per_payload, applies the invalidation to the target's TLB, and stores SUCCESS into
// the slot's byte. Scans repeat while deliveries arrived during the previous one. RAR runs
// with IRQs disabled too (RAR_CTRL IGNORE_IF) and runs no kernel code: the time from the
// start of the entry to the last store is taken from the target CPU with Cpu::steal(),
// step by step, unless the CPU is idle.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "hw/machine.h"
#include "hw/tlb/tlb.h"
#include "sim/engine.h"
#include "sim/signal.h"
#include "sim/task.h"

namespace ipisim::hw {

enum class RarType : uint8_t { invpg = 0, invpg_no_cr3 = 1, invpcid = 2, invept = 3, invvpid = 4, wrmsr = 5 };
// RAR_INVPCID_* subtypes.
enum class RarSubtype : uint8_t { addr = 0, pcid = 1, all = 2, all_no_global = 3 };

struct RarPayload {
    RarType type = RarType::invpcid;
    RarSubtype subtype = RarSubtype::addr;
    PageSize page_size = PageSize::size_4k;
    uint8_t num_pages = 1;  // 6-bit field: at most kRarMaxPages
    Pcid pcid = 0;          // the low 12 bits of the initiator CR3 word
    uint64_t linear_address = 0;

    // What it removes from the target's TLB (INVPCID types only; others: std::logic_error).
    [[nodiscard]] Invalidation invalidation() const;
};

inline constexpr uint8_t kRarSuccess = 0x00;
inline constexpr uint8_t kRarPending = 0x01;
inline constexpr uint8_t kRarFailure = 0x80;
inline constexpr uint32_t kRarMaxPages = 63;  // RAR_INVLPG_MAX_PAGES

struct RarStats {
    uint64_t received = 0;  // RAR deliveries
    uint64_t scans = 0;     // action-vector scans (the first of each processing included)
    uint64_t rescans = 0;   // scans caused by a delivery during processing
    uint64_t payloads = 0;  // payloads processed
    sim::Picos stolen;      // CPU time taken by the microcode
};

class Rar {
public:
    // cpus[c] may be nullptr (no time is then stolen); tlbs[c] is CPU c's TLB.
    Rar(sim::Engine& eng, const MachineSpec& spec, Memory& mem, std::vector<Cpu*> cpus, std::vector<Tlb*> tlbs);
    Rar(const Rar&) = delete;
    Rar& operator=(const Rar&) = delete;

    [[nodiscard]] uint32_t nr_payloads() const { return nr_payloads_; }

    // --- sender side, run by the sender's process ---
    sim::Task<> write_payload(CpuId sender, uint32_t slot, RarPayload payload);
    sim::Task<> set_action_pending(CpuId sender, CpuId target, uint32_t slot);
    sim::Task<uint8_t> read_action(CpuId reader, CpuId target, uint32_t slot);
    // The variable holding target's byte for `slot`, to spin on; action_byte() extracts it.
    [[nodiscard]] SimVar& action_word(CpuId target, uint32_t slot) const {
        return *per_cpu_.at(target)->action.at(slot / 8);
    }
    [[nodiscard]] static uint8_t action_byte(uint64_t word, uint32_t slot) {
        return static_cast<uint8_t>(word >> (8 * (slot % 8)));
    }

    // --- target side ---
    // The interrupt controller's RAR-mode delivery hook.
    void deliver(CpuId target, CpuId sender);
    [[nodiscard]] bool processing(CpuId cpu) const { return per_cpu_.at(cpu)->processing; }
    // Whether the microcode is scanning (processing, past the core's wake from a C-state): the
    // round trip's local APIC takes no RAR then. While the core wakes it takes them and they
    // are latched as a rescan.
    [[nodiscard]] bool scanning(CpuId cpu) const {
        const PerCpu& pc = *per_cpu_.at(cpu);
        return pc.processing && !pc.waking;
    }
    // Called when a CPU's microcode stops processing (its last scan found no new delivery):
    // the round-trip fabric accepts the next RAR waiting at that CPU's door.
    void set_idle_hook(std::function<void(CpuId)> hook) { idle_hook_ = std::move(hook); }
    [[nodiscard]] const RarStats& stats(CpuId cpu) const { return per_cpu_.at(cpu)->stats; }
    [[nodiscard]] RarStats total_stats() const;

    // --- observation (no cost) ---
    [[nodiscard]] const RarPayload& payload(uint32_t slot) const { return payloads_.at(slot); }
    [[nodiscard]] uint8_t peek_action(CpuId target, uint32_t slot) const {
        return action_byte(action_word(target, slot).peek(), slot);
    }

private:
    struct PerCpu {
        std::vector<SimVar*> action;  // slot / 8 -> word
        sim::Signal kick;
        bool kicked = false;
        bool processing = false;
        bool waking = false;  // processing, the core still waking from its C-state
        bool rescan = false;
        sim::Picos charged;  // microcode time up to here has been stolen
        RarStats stats;
    };
    sim::Proc microcode(CpuId cpu);
    sim::Task<> scan(CpuId cpu);
    sim::Task<> process_slot(CpuId cpu, uint32_t slot);
    void charge(CpuId cpu);
    void check_slot(uint32_t slot) const;

    sim::Engine& eng_;
    const MachineSpec& spec_;
    Memory& mem_;
    uint32_t nr_payloads_;
    std::vector<Cpu*> cpus_;
    std::vector<Tlb*> tlbs_;
    std::vector<RarPayload> payloads_;
    std::vector<SimVar*> payload_lines_;
    std::vector<std::unique_ptr<PerCpu>> per_cpu_;
    std::function<void(CpuId)> idle_hook_;
};

}  // namespace ipisim::hw
