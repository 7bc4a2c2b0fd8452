// SpinLock (qspinlock, kernel/locking/qspinlock.c): a lock word on one shared line. The fast
// path is one cmpxchg 0 -> locked. A CPU that finds it taken joins the MCS queue (one xchg of
// the tail, on the same line); the queue head spins on the lock word, the others each spin on
// their own per-CPU MCS node line. The owner's release is a store to the lock word; the head
// takes the lock and then hands the head position to its successor with a store to the
// successor's node. So a contended handoff costs the lock line's transfer to the head plus
// one node-line write, and spinners do not all re-fetch the lock line on every release.
// Callers take it with IRQs disabled (spin_lock_irqsave/spin_lock_irq): a CPU spinning or
// holding it does not take IPIs until it re-enables them.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "sim/task.h"

namespace ipisim::kernel::mm {

class SpinLock {
public:
    // `name` labels the profile time: "<name>" while spinning and holding.
    SpinLock(hw::Memory& mem, const std::string& name, uint32_t home_node, uint32_t nr_cpus);
    // A lock word `word` inside a larger structure (rw_semaphore.wait_lock beside its count);
    // each CPU's MCS node is allocated when that CPU first queues on the lock.
    SpinLock(hw::Memory& mem, hw::SimVar& word, const std::string& name, uint32_t home_node);

    // Acquires with IRQs already disabled by the caller; spin time is charged as `spin`.
    sim::Task<> lock(hw::Cpu& cpu);
    sim::Task<> unlock(hw::Cpu& cpu);

    [[nodiscard]] uint32_t label() const { return label_; }
    [[nodiscard]] uint64_t acquisitions() const { return acquisitions_; }
    [[nodiscard]] uint64_t contended() const { return contended_; }
    [[nodiscard]] bool locked() const { return (val_->peek() & 1) != 0; }

private:
    hw::SimVar& node(hw::CpuId cpu);

    hw::Memory& mem_;
    hw::SimVar* val_;                // locked byte + tail, one word
    std::vector<hw::SimVar*> node_;  // per-CPU MCS node (qnodes[cpu].locked), null until used
    std::string name_;
    uint32_t home_node_ = 0;
    std::deque<hw::CpuId> queue_;  // the MCS queue, head first
    uint32_t label_;
    uint64_t acquisitions_ = 0;
    uint64_t contended_ = 0;
};

}  // namespace ipisim::kernel::mm
