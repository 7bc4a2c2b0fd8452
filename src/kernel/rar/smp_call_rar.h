// The kernel side of Intel RAR (arch/x86/mm/rar.c, RAR RFC v4, docs/mechanisms.md §3.2): the
// payload-slot locks and smp_call_rar_many(), built from two parts a variant chooses (the
// registered variants: `ipisim list`, kind tlb_flush, rar-*):
//
//   RarPlacement   which payload slot a sender uses (cpu_rar_payload_number(), RFC v4:
//                  this_cpu % rar_max_payloads) and the order it visits its targets in
//                  (RFC v4: CPU number, for_each_cpu);
//   RarSendPolicy  what the sender does once its payload is written and every target has it
//                  PENDING, until it frees the slot: rar_naive_send (RFC v4, rar_naive.cpp)
//                  or rar_pending_send (seed 000's rar_pending patch, rar_optimized.cpp).
//
//   kernel::SmpCallRar rar(platform, smp.cpu_online_mask(),
//                          {kernel::rar_pending_send, kernel::cpu_number_placement});
//   co_await rar.smp_call_rar_many(cpu, mask, pcid, start, end);   // IRQs enabled
//
// The hardware (payload table lines, per-CPU action-vector lines, target microcode) is the
// Platform's hw::Rar. Kernel state here: rar_locks[slot], each alone on a line homed on node 0
// (a static __cacheline_aligned array).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/coherence/read_ahead.h"
#include "hw/cpumask.h"
#include "hw/platform.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/locking/raw_spinlock.h"
#include "sim/task.h"

namespace ipisim::kernel {

// arch/x86/include/asm/irq_vectors.h (RFC v3 4/7): the RAR "IPI", ICR mode APIC_DM_RAR.
inline constexpr uint32_t RAR_VECTOR = 0xe0;
inline constexpr uint64_t RAR_PAGE_SIZE = 4096;
inline constexpr uint64_t RAR_TLB_FLUSH_ALL = ~0ULL;  // TLB_FLUSH_ALL

struct RarCallStats {
    uint64_t calls = 0;            // smp_call_rar_many() calls with a non-empty destination
    uint64_t requests = 0;         // (call, target) pairs: PENDING bytes written
    uint64_t ipis = 0;             // RAR IPIs: targets in the APIC send masks
    uint64_t sends = 0;            // native_send_rar_ipi() calls with a non-empty mask
    uint64_t loop_backs = 0;       // optimized: do/while iterations after the first
    uint64_t claims = 0;           // optimized: get_rar_pending() won the target
    uint64_t claims_lost = 0;      // optimized: another sender had it (no IPI from us)
    uint64_t unprocessed = 0;      // optimized: wait_for_action_done() gave up on PENDING
    uint64_t slot_lock_waits = 0;  // contended slot-lock acquisitions
    sim::Picos slot_lock_spin;     // time spent waiting for slot locks
    sim::Picos action_spin;        // time spent in wait_for_action_done()
};

// Which payload slot each CPU sends with, and the order a sender visits its targets in. This
// base is RFC v4's: slot = cpu % rar_max_payloads, targets in CPU number order.
class RarPlacement {
public:
    virtual ~RarPlacement() = default;
    // Once, when the kernel side is bound to a machine with `nr_slots` payload slots.
    virtual void attach(const hw::Topology& /*topology*/, uint32_t nr_slots) { nr_slots_ = nr_slots; }
    // cpu_rar_payload_number() for `cpu`: below the slot count.
    [[nodiscard]] virtual uint32_t payload_slot(hw::CpuId cpu) const { return cpu % nr_slots_; }
    // Appends the CPUs of `dest` to `order` (empty), in the order `self` writes their PENDING
    // bytes, claims and waits on them.
    virtual void order_targets(hw::CpuId self, const hw::CpuMask& dest, std::vector<hw::CpuId>& order) const;

protected:
    uint32_t nr_slots_ = 0;
};

class SmpCallRar;

// The part of smp_call_rar_many() between "every target has the payload PENDING" and
// free_payload_slot().
class RarSendPolicy {
public:
    virtual ~RarSendPolicy() = default;
    // Once, when `rar` is bound to its machine: per-machine state of the policy.
    virtual void attach(SmpCallRar& rar) { rar_ = &rar; }
    // Gets every CPU of `dest` (the sender's scratch copy, the policy may consume it) to process
    // `slot`, and returns when all have. `order` lists dest in the placement's visiting order.
    virtual sim::Task<> send_and_wait(hw::Cpu& self, uint32_t slot, hw::CpuMask& dest,
                                      const std::vector<hw::CpuId>& order) = 0;

protected:
    [[nodiscard]] SmpCallRar& rar() const { return *rar_; }

private:
    SmpCallRar* rar_ = nullptr;
};

// A variant is data: how to make its two parts.
struct RarVariant {
    std::unique_ptr<RarSendPolicy> (*send)();
    std::unique_ptr<RarPlacement> (*placement)();
};
std::unique_ptr<RarSendPolicy> rar_naive_send();    // RFC v4 (rar_naive.cpp)
std::unique_ptr<RarSendPolicy> rar_pending_send();  // seed 000 (rar_optimized.cpp)
// seed 000 without its do/while loop-back: a target whose wait gave up (its rar_pending read -1
// while the byte was PENDING) is never claimed again. Only for the checker's mutant
// rar-optimized-noloop (src/check/mutants.cpp).
std::unique_ptr<RarSendPolicy> rar_pending_send_noloop();
std::unique_ptr<RarPlacement> cpu_number_placement();
// For a placement of one's own: RarVariant{rar_pending_send, make_placement<MyPlacement>}.
template <class P>
std::unique_ptr<RarPlacement> make_placement() {
    return std::make_unique<P>();
}

class SmpCallRar {
public:
    // Binds the kernel side to `platform`, which must have RAR; `online` (cpu_online_mask) and
    // `ipi` (the APIC driver that sends the RAR IPIs) are referenced.
    SmpCallRar(hw::Platform& platform, const hw::CpuMask& online, irqchip::Irqchip& ipi, const RarVariant& variant);
    SmpCallRar(const SmpCallRar&) = delete;
    SmpCallRar& operator=(const SmpCallRar&) = delete;

    // Invalidates [start, end) of `pcid` (0: everything, globals included) on every online CPU
    // of `mask`, self included when set (v4 keeps it), and returns when all have done it.
    // Awaited by the process running on `self`, with IRQs enabled.
    sim::Task<> smp_call_rar_many(hw::Cpu& self, const hw::CpuMask& mask, hw::Pcid pcid, uint64_t start, uint64_t end);

    // rar_max_payloads: the hardware's slot count, at most RAR_MAX_PAYLOADS (64).
    [[nodiscard]] uint32_t rar_max_payloads() const { return nr_slots_; }
    [[nodiscard]] uint32_t payload_slot(hw::CpuId cpu) const { return placement_->payload_slot(cpu); }
    [[nodiscard]] const RawSpinLock& rar_lock(uint32_t slot) const { return *rar_locks_.at(slot); }
    [[nodiscard]] const RarCallStats& stats() const { return stats_; }
    [[nodiscard]] RarCallStats& stats() { return stats_; }
    [[nodiscard]] hw::Rar& hardware() const { return *hw_; }
    [[nodiscard]] hw::Platform& platform() const { return p_; }
    [[nodiscard]] hw::Memory& mem() const { return p_.memory(); }

    // --- the steps of arch/x86/mm/rar.c, for the send policies ---
    // native_send_rar_ipi(): __apic_send_IPI_mask(dest, RAR_VECTOR) in mode APIC_DM_RAR.
    sim::Task<> native_send_rar_ipi(hw::Cpu& self, const hw::CpuMask& dest);
    // RFC v4 wait_for_action_done(): spin (IRQs on) until the byte is no longer PENDING.
    // `spun`, when given: whether the first look found it PENDING.
    sim::Task<uint8_t> wait_for_action_done(hw::Cpu& self, uint32_t slot, hw::CpuId target, bool* spun = nullptr);
    // The wait pass over `order`'s action bytes, with the out-of-order window reading the
    // next targets' action lines ahead (hw/coherence/read_ahead.h).
    sim::Task<> wait_for_all(hw::Cpu& self, uint32_t slot, const std::vector<hw::CpuId>& order);
    // The branch predictor of a wait pass's "spin on this target?" on each CPU.
    [[nodiscard]] hw::Bimodal& wait_predictor(hw::CpuId cpu) { return wait_predictor_[cpu]; }

private:
    // get_payload_slot(): slot = cpu_rar_payload_number(), then raw_spin_lock(rar_locks[slot]).
    sim::Task<uint32_t> get_payload_slot(hw::Cpu& self);
    sim::Task<> free_payload_slot(hw::Cpu& self, uint32_t slot);
    // set_payload(): INVPCID; ADDR with num_pages below RAR_INVLPG_MAX_PAGES, else PCID; pcid 0: ALL.
    sim::Task<> set_payload(hw::Cpu& self, uint32_t slot, hw::Pcid pcid, uint64_t start, uint64_t pages);
    // set_action_entry(): RAR_PENDING into the target's action byte for the slot.
    sim::Task<> set_action_entry(hw::Cpu& self, uint32_t slot, hw::CpuId target);
    // (end - start + PAGE_SIZE) / PAGE_SIZE pages, or RAR_INVLPG_MAX_PAGES + 1 for TLB_FLUSH_ALL.
    [[nodiscard]] static uint64_t rar_pages(uint64_t start, uint64_t end);

    hw::Platform& p_;
    irqchip::Irqchip& ipi_;
    hw::Rar* hw_;
    const hw::CpuMask& online_;
    uint32_t nr_slots_;
    std::unique_ptr<RarPlacement> placement_;
    std::unique_ptr<RarSendPolicy> send_;
    std::vector<std::unique_ptr<RawSpinLock>> rar_locks_;
    std::vector<hw::CpuMask> rar_cpu_mask_;          // DEFINE_PER_CPU(struct cpumask, rar_cpu_mask)
    std::vector<std::vector<hw::CpuId>> rar_order_;  // per CPU: its targets in visiting order
    std::vector<hw::Bimodal> wait_predictor_;        // per CPU
    RarCallStats stats_;
};

}  // namespace ipisim::kernel
