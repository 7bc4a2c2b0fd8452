// The kernel side of Intel RAR (arch/x86/mm/rar.c, RAR RFC v4, docs/mechanisms.md §3.2): the
// payload-slot locks, and smp_call_rar_many() in registered variants (kind "rar"):
//
//   naive      RFC v4: lock the slot, fill the payload, PENDING into every target's action
//              vector, one RAR IPI to every target, spin on each target's byte   (rar_naive.cpp)
//   optimized  seed 000: a per-target rar_pending claimed by cmpxchg; the RAR IPI goes only
//              to targets this CPU claimed; loop back when a request went unprocessed and
//              the target's claimer let go                                        (rar_optimized.cpp)
//
//   auto rar = kernel::make_rar("optimized", platform, smp.cpu_online_mask(), smp.irqchip());
//   co_await rar->smp_call_rar_many(cpu, mask, pcid, start, end);   // IRQs enabled
//
// The hardware (payload table lines, per-CPU action-vector lines, target microcode) is the
// Platform's hw::Rar. Kernel state here: rar_locks[slot], each alone on a line homed on node 0
// (a static __cacheline_aligned array). A new variant (e.g. the locality-grouped slots of the
// TODO in rar.c) is one .cpp deriving Rar plus one registration line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/cpumask.h"
#include "hw/platform.h"
#include "kernel/irqchip/irqchip.h"
#include "kernel/rar/raw_spinlock.h"
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

class Rar {
public:
    virtual ~Rar() = default;
    Rar() = default;
    Rar(const Rar&) = delete;
    Rar& operator=(const Rar&) = delete;

    // Binds the kernel side to a machine with RAR; `online` (cpu_online_mask) and `ipi` (the
    // APIC driver that sends the RAR IPIs) are referenced.
    void attach(hw::Platform& platform, const hw::CpuMask& online, irqchip::Irqchip& ipi);

    // Invalidates [start, end) of `pcid` (0: everything, globals included) on every online CPU
    // of `mask`, self included when set (v4 keeps it), and returns when all have done it.
    // Awaited by the process running on `self`, with IRQs enabled.
    virtual sim::Task<> smp_call_rar_many(hw::Cpu& self, const hw::CpuMask& mask, hw::Pcid pcid, uint64_t start,
                                          uint64_t end) = 0;

    // rar_max_payloads: the hardware's slot count, at most RAR_MAX_PAYLOADS (64).
    [[nodiscard]] uint32_t rar_max_payloads() const { return nr_slots_; }
    [[nodiscard]] uint32_t payload_slot(hw::CpuId cpu) const { return cpu % nr_slots_; }
    [[nodiscard]] const RawSpinLock& rar_lock(uint32_t slot) const { return *rar_locks_.at(slot); }
    [[nodiscard]] const RarCallStats& stats() const { return stats_; }
    [[nodiscard]] hw::Rar& hardware() const { return *hw_; }

protected:
    // Per-machine state of a variant, after attach().
    virtual void on_attach() {}

    // get_payload_slot(): slot = this_cpu % rar_max_payloads, then raw_spin_lock(rar_locks[slot]).
    sim::Task<uint32_t> get_payload_slot(hw::Cpu& self);
    sim::Task<> free_payload_slot(hw::Cpu& self, uint32_t slot);
    // set_payload(): INVPCID; ADDR with num_pages below RAR_INVLPG_MAX_PAGES, else PCID; pcid 0: ALL.
    sim::Task<> set_payload(hw::Cpu& self, uint32_t slot, hw::Pcid pcid, uint64_t start, uint64_t pages);
    // set_action_entry(): RAR_PENDING into the target's action byte for the slot.
    sim::Task<> set_action_entry(hw::Cpu& self, uint32_t slot, hw::CpuId target);
    // native_send_rar_ipi(): __apic_send_IPI_mask(dest, RAR_VECTOR) in mode APIC_DM_RAR.
    sim::Task<> native_send_rar_ipi(hw::Cpu& self, const hw::CpuMask& dest);
    // RFC v4 wait_for_action_done(): spin (IRQs on) until the byte is no longer PENDING.
    sim::Task<uint8_t> wait_for_action_done(hw::Cpu& self, uint32_t slot, hw::CpuId target);
    // The common head of smp_call_rar_many(): (end - start + PAGE_SIZE) / PAGE_SIZE pages, or
    // RAR_INVLPG_MAX_PAGES + 1 for TLB_FLUSH_ALL; the kernel path cost; dest = mask & online.
    [[nodiscard]] static uint64_t rar_pages(uint64_t start, uint64_t end);
    void rar_dest_mask(const hw::CpuMask& mask, hw::CpuMask& dest) const;

    [[nodiscard]] hw::Platform& platform() const { return *p_; }
    [[nodiscard]] hw::Memory& mem() const { return p_->memory(); }
    // Per-CPU scratch masks (DEFINE_PER_CPU(struct cpumask, rar_cpu_mask) and friends).
    [[nodiscard]] hw::CpuMask& rar_cpu_mask(hw::CpuId c) { return rar_cpu_mask_.at(c); }

    RarCallStats stats_;

private:
    hw::Platform* p_ = nullptr;
    irqchip::Irqchip* ipi_ = nullptr;
    hw::Rar* hw_ = nullptr;
    const hw::CpuMask* online_ = nullptr;
    uint32_t nr_slots_ = 0;
    std::vector<std::unique_ptr<RawSpinLock>> rar_locks_;
    std::vector<hw::CpuMask> rar_cpu_mask_;
};

// The registered variant `name` ("naive", "optimized"), attached to the platform, which must
// have RAR. std::invalid_argument naming the registered variants when unknown.
std::unique_ptr<Rar> make_rar(const std::string& name, hw::Platform& platform, const hw::CpuMask& online,
                              irqchip::Irqchip& ipi);
// "naive, optimized" (sorted).
std::string rar_variant_names();

}  // namespace ipisim::kernel
