// The two kernel locks the mm paths contend on, on simulated cache lines.
//
// SpinLock (qspinlock, kernel/locking/qspinlock.c): a lock word on one shared line. The fast
// path is one cmpxchg 0 -> locked. A CPU that finds it taken joins the MCS queue (one xchg of
// the tail, on the same line); the queue head spins on the lock word, the others each spin on
// their own per-CPU MCS node line. The owner's release is a store to the lock word; the head
// takes the lock and then hands the head position to its successor with a store to the
// successor's node. So a contended handoff costs the lock line's transfer to the head plus
// one node-line write, and spinners do not all re-fetch the lock line on every release.
// Callers take it with IRQs disabled (spin_lock_irqsave/spin_lock_irq): a CPU spinning or
// holding it does not take IPIs until it re-enables them.
//
// RwSem (rw_semaphore): a count word on one line (readers add READER_BIAS, a writer sets
// WRITER_LOCKED). down_read/up_read are one atomic add each; down_write is a cmpxchg 0 ->
// WRITER_LOCKED. A writer that has to wait sets FLAG_WAITERS; readers that then find it
// (RWSEM_READ_FAILED_MASK) back out and queue behind the writer, so a stream of readers does
// not starve it (rwsem_down_read_slowpath does not steal a reader-owned lock with waiters). A blocked task spins on the
// count with IRQs enabled [A]: the kernel spins optimistically and then sleeps; tlb_flush2's writers (mmap/munmap) are
// short and rare, and nothing else would run on the CPU while the task slept.
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

    // Acquires with IRQs already disabled by the caller; spin time is charged as `spin`.
    sim::Task<> lock(hw::Cpu& cpu);
    sim::Task<> unlock(hw::Cpu& cpu);

    [[nodiscard]] uint32_t label() const { return label_; }
    [[nodiscard]] uint64_t acquisitions() const { return acquisitions_; }
    [[nodiscard]] uint64_t contended() const { return contended_; }
    [[nodiscard]] bool locked() const { return (val_->peek() & 1) != 0; }

private:
    hw::Memory& mem_;
    hw::SimVar* val_;                // locked byte + tail, one word
    std::vector<hw::SimVar*> node_;  // per-CPU MCS node (qnodes[cpu].locked)
    std::deque<hw::CpuId> queue_;    // the MCS queue, head first
    uint32_t label_;
    uint64_t acquisitions_ = 0;
    uint64_t contended_ = 0;
};

class RwSem {
public:
    static constexpr uint64_t WRITER_LOCKED = 1;
    static constexpr uint64_t FLAG_WAITERS = 2;
    static constexpr uint64_t READER_BIAS = 1U << 8;

    RwSem(hw::Memory& mem, const std::string& name, uint32_t home_node);

    sim::Task<> down_read(hw::Cpu& cpu);
    sim::Task<> up_read(hw::Cpu& cpu);
    sim::Task<> down_write(hw::Cpu& cpu);
    sim::Task<> up_write(hw::Cpu& cpu);
    // downgrade_write(): the writer becomes a reader (one atomic add).
    sim::Task<> downgrade_write(hw::Cpu& cpu);

    [[nodiscard]] hw::SimVar& count() const { return *count_; }

private:
    hw::Memory& mem_;
    hw::SimVar* count_;
    uint32_t label_;
    uint32_t waiting_writers_ = 0;
};

}  // namespace ipisim::kernel::mm
