// The deadlock monitor (docs/checker.md, "Deadlock"): who holds what, and who waits for whom.
//
// It follows lock ownership (qspinlock / raw spinlock words: lock_acquired, lock_released; the
// rw_semaphore count words such as mmap_lock: rwsem_acquired / rwsem_released, its writer or its
// readers) and which CPU will unlock each queued CSD (csd_locked: the target whose IPI handler
// runs it). When the run ends with work unfinished and no event left (nothing can ever wake a
// waiter), each waiting CPU's innermost wait gives one wait-for edge: a lock word, or a CPU's MCS
// queue node of that lock (lock_queued: it waits for the handoff, in the end for the holder) -> its holder,
// an rwsem (its count, or a waiter's own line, lock_queued as for an MCS node) -> its writer, or else one of its
// readers (one that is itself waiting, if any: that is the one a cycle goes through), a CSD -> its target. A CSD edge
// blocks only while its target has IRQs off: a target with IRQs on would run the handler at once if the IPI had been
// sent, so waiting on it with no event left is a lost wake-up (the IPI was never sent), not a deadlock. A cycle of
// blocking edges is a deadlock, reported with every CPU's held locks, wait and IRQ state; waits outside any cycle are
// lost wake-ups (or wait on a CPU in the cycle).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/var_table.h"
#include "check/violation.h"
#include "check/waits.h"

namespace ipisim::check {

class Deadlock {
public:
    void lock_acquired(hw::CpuId cpu, const hw::SimVar& word) { holder_.set(word, cpu); }
    void lock_released(const hw::SimVar& word) { holder_.erase(word); }
    void lock_queued(const hw::SimVar& node, const hw::SimVar& word) { queued_on_.set(node, &word); }
    void csd_locked(const hw::SimVar& flags, hw::CpuId target) {
        const size_t i = var_index(flags);
        if (i >= csd_target_.size()) csd_target_.resize(i + 1 + csd_target_.size() / 2, hw::kNoCpu);
        csd_target_[i] = target;
    }
    void rwsem_acquired(hw::CpuId cpu, const hw::SimVar& count, bool write);
    void rwsem_released(hw::CpuId cpu, const hw::SimVar& count, bool write);

    // The CPU `cpu`'s innermost wait waits for, or nr_cpus when none is known.
    [[nodiscard]] hw::CpuId waits_for(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus) const;
    // The same, but nr_cpus for a CSD whose target has IRQs on (no blocking edge).
    [[nodiscard]] hw::CpuId blocked_by(const Waits& waits, hw::CpuId cpu, uint32_t nr_cpus,
                                       const std::function<bool(hw::CpuId)>& irqs_off) const;
    // Locks held by `cpu` (names, sorted; an rwsem as "mm[3].mmap_lock (write)" or "(read)").
    [[nodiscard]] std::vector<std::string> held_by(hw::CpuId cpu) const;
    // The report when the run ended with nothing left to happen: the deadlock with its cycle,
    // or, without a cycle, the lost wake-up of the first waiting CPU. `irqs_off(c)` is the IRQ
    // state of CPU c; `finished(c)` whether its work completed.
    [[nodiscard]] Violation analyze(const Waits& waits, uint32_t nr_cpus, sim::Picos now,
                                    const std::function<bool(hw::CpuId)>& irqs_off) const;

private:
    [[nodiscard]] std::string describe(const Waits& waits, hw::CpuId c, uint32_t nr_cpus, sim::Picos now,
                                       const std::function<bool(hw::CpuId)>& irqs_off) const;

    // The owners of an rw_semaphore: its writer, or its readers (a CPU once per read hold).
    struct RwOwners {
        bool writer = false;
        hw::CpuId writer_cpu = 0;
        std::vector<hw::CpuId> readers;
    };
    // The lock word an MCS queue node belongs to; any other variable itself.
    [[nodiscard]] const hw::SimVar* lock_word(const hw::SimVar* var) const;
    // "held for write by cpu0" / "held for read by cpu1, cpu2" (empty: not an rwsem).
    [[nodiscard]] std::string rwsem_owners(const hw::SimVar* count) const;

    // Updated on every lock, unlock and CSD lock: tables indexed by variable (var_table.h).
    VarTable<hw::CpuId> holder_;
    std::unordered_map<const hw::SimVar*, RwOwners> rwsem_;
    // The target of every CSD ever locked, by its flags word's var_index (kNoCpu: none); one
    // word per slot, as there are up to nr_cpus^2 multi-call CSDs (one Memory per monitor).
    std::vector<hw::CpuId> csd_target_;
    VarTable<const hw::SimVar*> queued_on_;  // MCS node -> its lock word
};

}  // namespace ipisim::check
