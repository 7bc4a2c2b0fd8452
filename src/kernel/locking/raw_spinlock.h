// A spinlock taken with IRQs left enabled (spin_lock(), raw_spin_lock()): an interrupt arriving
// while the CPU waits for the lock, or while it holds it, is handled at once and the wait
// resumes. Its users:
//   - RAR's rar_locks[] (arch/x86/mm/rar.c): smp_call_rar_many() runs with IRQs on
//     (lockdep_assert_irqs_enabled()), preemption disabled;
//   - the split PTE lock of a page table page (ptdesc->ptl, CONFIG_SPLIT_PTE_PTLOCKS,
//     pte_offset_map_lock() in do_anonymous_page() and zap_pte_range(); kernel/mm/mm_types.h).
//
// The lock is a qspinlock word alone on its cache line. Fast path: one cmpxchg 0 -> locked.
// Contended: the kernel's pending path, a test-and-test-and-set — spin reading the word until
// the locked byte clears, then cmpxchg again. Both users see at most two CPUs on one lock in
// the seeds' workloads (RFC v4's slot = cpu % rar_max_payloads shares a slot lock among
// ceil(nr_cpus / slots) CPUs: 1 on a 60-CPU Sapphire Rapids, 2-4 on 128-256 CPUs; a PTE page
// maps 2 MiB, two of tlb_flush2's 1 MiB regions), so the MCS queue of qspinlock (for three or
// more waiters) is not modeled here [A]: with more waiters every one of them re-fetches the
// word at each release instead of queueing (kernel/mm/spinlock.h has the queue, for locks
// taken with IRQs off).
#pragma once

#include <cstdint>
#include <string>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "sim/task.h"
#include "sim/time.h"

namespace ipisim::kernel {

struct RawSpinLockStats {
    uint64_t acquisitions = 0;
    uint64_t contended = 0;  // acquisitions that found the lock taken
    sim::Picos spin;         // time from the failed fast path to the acquisition
};

class RawSpinLock {
public:
    // `name` names the lock's line and the profile label charged (as spin) while waiting, in
    // `category` (what the lock's holders do).
    RawSpinLock(hw::Memory& mem, const std::string& name, uint32_t home_node,
                hw::LabelCategory category = hw::LabelCategory::none);
    // A lock of a family with one profile label (`label`, e.g. every PTE page's "ptdesc.ptl"),
    // its line still named `name`.
    RawSpinLock(hw::Memory& mem, const std::string& name, const std::string& label, uint32_t home_node);

    sim::Task<> raw_spin_lock(hw::Cpu& cpu);
    sim::Task<> raw_spin_unlock(hw::Cpu& cpu);

    [[nodiscard]] bool locked() const { return val_->peek() != 0; }
    [[nodiscard]] hw::SimVar& word() const { return *val_; }
    [[nodiscard]] const RawSpinLockStats& stats() const { return stats_; }

private:
    hw::Memory& mem_;
    hw::SimVar* val_;
    uint32_t label_;
    RawSpinLockStats stats_;
};

}  // namespace ipisim::kernel
