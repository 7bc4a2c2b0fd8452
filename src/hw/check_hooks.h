// Hooks of the correctness checker (src/check, docs/checker.md) into the hardware and kernel
// models: one-line calls at the points an invariant needs to see (waits, profile scopes, locks,
// TLB uses, PTE changes, CSD unlocks), and the perturbation of timing that schedule
// exploration installs (jitter on line transfers and interrupt deliveries).
//
// Both are thread-local pointers, null unless a checker installed them on this thread: with
// none installed every hook is one load and one branch. Observers only read: a CheckHooks
// implementation never changes simulated state or schedules an event, so installing it leaves
// the event order and the fingerprint unchanged. A Perturbation does change timing (that is
// its purpose); it is installed only by `ipisim check`.
//
//   if (auto* h = hw::check_hooks()) h->wait_begin(cpu, var, now);   // or the helpers below
#pragma once

#include <cstdint>

#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::hw {

class SimVar;

class CheckHooks {
public:
    virtual ~CheckHooks() = default;

    // A CPU starts / ends waiting for a variable to change (a spin, with or without IRQs).
    virtual void wait_begin(CpuId cpu, const SimVar& var) = 0;
    virtual void wait_end(CpuId cpu) = 0;
    // A profile-label scope (a kernel frame) opens / closes on a CPU.
    virtual void frame_push(CpuId cpu, uint32_t label) = 0;
    virtual void frame_pop(CpuId cpu) = 0;
    // A lock whose word is `word` is now held by `cpu` / released by it.
    virtual void lock_acquired(CpuId cpu, const SimVar& word) = 0;
    virtual void lock_released(CpuId cpu, const SimVar& word) = 0;
    // `cpu` joined the MCS queue of the lock whose word is `word` and waits on its own queue
    // node `node` for the handoff: it waits, in the end, for the lock's holder.
    virtual void lock_queued(CpuId /*cpu*/, const SimVar& /*node*/, const SimVar& /*word*/) {}
    // The task running on `cpu` goes to sleep until `var` (a queued rwsem waiter's own line,
    // lock_queued to its count) changes: its CPU switches away and may idle. sleep_end: it runs
    // again with the change seen. Tasks do not migrate while asleep (the model pins them).
    virtual void sleep_begin(CpuId /*cpu*/, const SimVar& /*var*/) {}
    virtual void sleep_end(CpuId /*cpu*/, const SimVar& /*var*/) {}
    // A reader-writer semaphore whose count word is `count` is now held by `cpu` for write or
    // read / released by it (downgrade_write: released for write, then acquired for read).
    virtual void rwsem_acquired(CpuId /*cpu*/, const SimVar& /*count*/, bool /*write*/) {}
    virtual void rwsem_released(CpuId /*cpu*/, const SimVar& /*count*/, bool /*write*/) {}
    // A CSD (its flags word) is locked by `cpu` for `target`, which will unlock it; a CSD is
    // unlocked by `cpu`, whose flags were `old_flags` just before.
    virtual void csd_locked(CpuId cpu, const SimVar& flags, CpuId target) = 0;
    virtual void csd_unlock(CpuId cpu, const SimVar& flags, uint64_t old_flags) = 0;
    // A user access by `cpu` in address space `mm_id` at `va` was translated by a TLB entry
    // filled at `filled`.
    virtual void user_tlb_hit(CpuId cpu, uint64_t mm_id, uint64_t va, sim::Picos filled) = 0;
    // The PTE of (mm_id, vpn) was cleared by `cpu` (zap).
    virtual void pte_cleared(CpuId cpu, uint64_t mm_id, uint64_t vpn) = 0;
    // The frames `cpu`'s zap of [start, end) at time `zapped` unmapped are released for reuse
    // (after the flush; with a lazy protocol later, possibly after a newer zap of the same
    // pages), and with `freed_tables` the page tables of the range too (munmap's free_pgtables).
    virtual void pages_released(CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, bool freed_tables,
                                sim::Picos zapped) = 0;
    // flush_tlb_mm_range() by `cpu` of [start, end) began at `began` and returns now.
    virtual void flush_returned(CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, sim::Picos began) = 0;

    // `cpu` finished a computation (Cpu::compute); `work`: as user or kernel code, the run makes
    // progress (not spinning, idle or in an interrupt handler).
    virtual void compute_done(CpuId /*cpu*/, bool /*work*/) {}
    // `cpu` wrote CR3 with `pcid` (hw::write_cr3): the PCID its page walks and TLB lookups use
    // from now on, whatever the kernel's per-CPU bookkeeping (loaded_mm_asid) says yet.
    virtual void cr3_written(CpuId /*cpu*/, uint16_t /*pcid*/) {}
    // The protocol contracts' hooks (no-ops unless a monitor wants them).
    // RAR (hw/tlb/rar.cpp): `sender` wrote the payload of `slot`; `sender` set `target`'s action
    // byte of `slot` PENDING; `target`'s microcode stored SUCCESS into it.
    virtual void rar_payload_written(CpuId /*sender*/, uint32_t /*slot*/) {}
    virtual void rar_action_pending(CpuId /*sender*/, CpuId /*target*/, uint32_t /*slot*/) {}
    virtual void rar_action_done(CpuId /*target*/, uint32_t /*slot*/) {}
    // INVLPGB (hw/tlb/invlpgb.cpp): `cpu` issued an INVLPGB (`all_asids`: of every non-global
    // translation of every PCID); `cpu`'s TLBSYNC returned (all its INVLPGBs are complete).
    virtual void invlpgb_issued(CpuId /*cpu*/, bool /*all_asids*/) {}
    virtual void tlbsync_returned(CpuId /*cpu*/) {}
    // flush_tlb_all() by `cpu` returned: every TLB of the machine flushed of every PCID.
    virtual void tlb_flushed_all(CpuId /*cpu*/) {}
    // Global ASIDs (kernel/tlbflush/global_asid.cpp): `asid` given to an mm / freed at mm
    // teardown; reset_global_asid_space() begins / ends (freed ASIDs are reusable from then on).
    virtual void global_asid_assigned(CpuId /*cpu*/, uint64_t /*asid*/) {}
    virtual void global_asid_freed(CpuId /*cpu*/, uint64_t /*asid*/) {}
    virtual void global_asid_reset_begin(CpuId /*cpu*/) {}
    virtual void global_asid_reset_end(CpuId /*cpu*/) {}
};

// Extra latency added to a modelled delay (schedule exploration). Implementations draw from
// their own seeded RNG, so a perturbed run is deterministic per seed.
class Perturbation {
public:
    virtual ~Perturbation() = default;
    // A cache-line transfer (coherence miss) that costs `cost` without perturbation.
    virtual sim::Picos line_transfer(sim::Picos cost) = 0;
    // An interrupt delivery on the fabric that takes `latency` without perturbation.
    virtual sim::Picos delivery(sim::Picos latency) = 0;
    // How long after it issued a store may leave the store buffer (`earliest` without
    // perturbation): a real core commits a store only once it retires, after every older
    // instruction, a missing load or a page walk among them (hw/coherence/store_buffer.h).
    virtual sim::Picos store_commit(sim::Picos earliest) = 0;
};

namespace detail {
inline thread_local CheckHooks* t_check_hooks = nullptr;
inline thread_local Perturbation* t_perturbation = nullptr;
}  // namespace detail

[[nodiscard]] inline CheckHooks* check_hooks() {
    return detail::t_check_hooks;
}
[[nodiscard]] inline Perturbation* perturbation() {
    return detail::t_perturbation;
}
// Installs (nullptr: removes) this thread's hooks / perturbation; returns the previous one.
inline CheckHooks* set_check_hooks(CheckHooks* h) {
    CheckHooks* old = detail::t_check_hooks;
    detail::t_check_hooks = h;
    return old;
}
inline Perturbation* set_perturbation(Perturbation* p) {
    Perturbation* old = detail::t_perturbation;
    detail::t_perturbation = p;
    return old;
}

// The perturbed delays (identity without a perturbation).
[[nodiscard]] inline sim::Picos perturbed_line_transfer(sim::Picos cost) {
    Perturbation* p = detail::t_perturbation;
    return p == nullptr ? cost : p->line_transfer(cost);
}
[[nodiscard]] inline sim::Picos perturbed_delivery(sim::Picos latency) {
    Perturbation* p = detail::t_perturbation;
    return p == nullptr ? latency : p->delivery(latency);
}
[[nodiscard]] inline sim::Picos perturbed_store_commit(sim::Picos earliest) {
    Perturbation* p = detail::t_perturbation;
    return p == nullptr ? earliest : p->store_commit(earliest);
}

// One-line hook calls (nothing without installed hooks).
#define IPISIM_CHECK_HOOK(call)                                                                 \
    do {                                                                                        \
        if (::ipisim::hw::CheckHooks* ipisim_h_ = ::ipisim::hw::check_hooks()) ipisim_h_->call; \
    } while (0)

}  // namespace ipisim::hw
