// The page LRU of mm/swap.c as tlb_flush2 meets it: a per-CPU folio_batch of new folios
// (cpu_fbatches.lru_add, PAGEVEC_SIZE folios: [kernel] folio_batch_size, 15 before 6.9 and 31
// from 6.9) that is moved onto the node's LRU list under the
// node's LRU lock (lruvec->lru_lock, a spinlock on a line shared by every CPU of the node)
// when it fills up or is drained, and the release of folios whose last reference goes away
// (removed from the LRU under the same lock, then freed to the per-CPU page lists).
//
// References: folio_add_lru() takes one for the batch; moving the batch drops it again. So a
// folio zapped while still in the batch is freed only when the batch moves (once per
// PAGEVEC_SIZE folios, one lock round for the adds and one for the releases), while with lru_add_drain()
// before the zap it is on the LRU already and its release takes the lock by itself.
#pragma once

#include <memory>
#include <vector>

#include "hw/cpu/cpu.h"
#include "kernel/mm/locks.h"
#include "kernel/mm/mm_types.h"
#include "sim/task.h"

namespace ipisim::kernel::mm {

class Mm;

struct LruStats {
    uint64_t batch_moves = 0;  // folio_batch_move_lru calls
    uint64_t releases = 0;     // folios freed by their last put
    uint64_t lock_rounds = 0;  // LRU lock acquisitions
};

class Lru {
public:
    // `batch_size`: PAGEVEC_SIZE, the folio_batch capacity (at least 1).
    Lru(Mm& mm, uint32_t batch_size);

    // folio_add_lru(): into this CPU's batch; moves the batch when it is full.
    sim::Task<> folio_add_lru(hw::Cpu& cpu, Folio* folio);
    // lru_add_drain(): moves this CPU's batch if it holds anything.
    sim::Task<> lru_add_drain(hw::Cpu& cpu);
    // folios_put(): drops one reference of each; the last one frees the folio (taking the
    // LRU lock once for all of them that are on the LRU).
    sim::Task<> folios_put(hw::Cpu& cpu, const std::vector<Folio*>& folios);

    [[nodiscard]] SpinLock& lru_lock(uint32_t node) { return *locks_.at(node); }
    [[nodiscard]] size_t batch_size(hw::CpuId c) const { return batch_.at(c).size(); }
    [[nodiscard]] uint32_t batch_capacity() const { return capacity_; }
    [[nodiscard]] const LruStats& stats() const { return stats_; }

private:
    sim::Task<> folio_batch_move_lru(hw::Cpu& cpu);
    sim::Task<> lock_irq(hw::Cpu& cpu, SpinLock& lock);
    sim::Task<> unlock_irq(hw::Cpu& cpu, SpinLock& lock);

    Mm& mm_;
    uint32_t capacity_;
    std::vector<std::unique_ptr<SpinLock>> locks_;  // per NUMA node
    std::vector<std::vector<Folio*>> batch_;        // per CPU
    LruStats stats_;
};

}  // namespace ipisim::kernel::mm
