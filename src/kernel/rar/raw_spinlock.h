// A raw spinlock as RAR's rar_locks[] uses it: raw_spin_lock() with preemption disabled and
// IRQs left enabled (smp_call_rar_many() runs with IRQs on, lockdep_assert_irqs_enabled()),
// so an interrupt arriving while the CPU waits for the lock is handled at once and the wait
// resumes.
//
// The lock is a qspinlock word alone on its cache line (rar_locks[] is __cacheline_aligned).
// Fast path: one cmpxchg 0 -> locked. Contended: the kernel's pending path, a
// test-and-test-and-set — spin reading the word until the locked byte clears, then cmpxchg
// again. With RFC v4's slot = cpu % rar_max_payloads, one slot lock is shared by
// ceil(nr_cpus / slots) CPUs (1 on a 60-CPU Sapphire Rapids, 2-4 on 128-256 CPUs), so the MCS
// queue of qspinlock (for three or more waiters) is not modeled here [A]: with more waiters
// every one of them re-fetches the word at each release instead of queueing.
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
