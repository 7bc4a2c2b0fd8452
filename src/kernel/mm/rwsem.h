// RwSem: the rw_semaphore (kernel/locking/rwsem.c), with its wait list, on simulated lines.
//
// struct rw_semaphore fits one cache line: the count word (WRITER_LOCKED, FLAG_WAITERS, the
// reader count in READER_BIAS units), the OSQ tail (osq.tail), and wait_lock (a raw spinlock, a
// qspinlock as SpinLock, spinlock.h) all live on it. The wait list itself is bookkeeping here.
//
// Fast paths: down_read is one fetch_add of READER_BIAS (it fails when the old count has
// RWSEM_READ_FAILED_MASK: a writer, or waiters queued), down_write one cmpxchg 0 -> WRITER_LOCKED.
//
// Slow paths, as the kernel's:
// - rwsem_down_write_slowpath(): rwsem_optimistic_spin() first, unless the lock is marked
//   RWSEM_NONSPINNABLE. The spinners queue in the OSQ (kernel/locking/osq_lock.c: an MCS queue,
//   each on its own node, the tail on the semaphore's line); only its head spins, on the count
//   line, while a writer owns the lock (rwsem_spin_on_owner), and takes it when the writer
//   leaves (rwsem_try_write_lock_unqueued; it may take it ahead of queued waiters), then hands
//   the OSQ head on (osq_unlock). A head that finds the lock reader-owned spins on for at most
//   rwsem_rspin_threshold() ((10 + readers/2) us, at most 25 us); past it, it sets
//   RWSEM_NONSPINNABLE (kept while readers own the lock, cleared by the next writer owner), so
//   later writers queue at once. Then, under
//   wait_lock: list_add_tail, FLAG_WAITERS (the first waiter) or a wake of the waiters ahead
//   when the lock is not writer-owned, and rwsem_try_write_lock() (a cmpxchg that clears
//   FLAG_WAITERS when it is the only waiter) until it succeeds, waiting between tries.
// - rwsem_down_read_slowpath(): a reader that finds only readers (more than itself) queues; one
//   that finds no writer keeps its bias (reader lock stealing; the first such reader wakes the
//   queued readers, RWSEM_WAKE_READ_OWNED); otherwise it queues under wait_lock and backs its bias
//   out (adding FLAG_WAITERS as the first waiter) and waits until a waker grants it the lock.
// - up_write/up_read/downgrade_write: when the old count has FLAG_WAITERS (up_read: and no
//   owner is left), rwsem_wake() takes wait_lock and rwsem_mark_wake() picks whom to wake: the
//   first waiter if it is a writer (it retries rwsem_try_write_lock itself), else up to
//   MAX_READERS_WAKEUP (256) readers from anywhere in the list (the writers stay queued), granted
//   the lock by the waker with one fetch_add and a store to each reader's waiter (waiter->task =
//   NULL); wake_up_q() after wait_lock is released wakes the writer.
//
// A waiter waits on its own line, one per CPU ("<name>.waiter[cpu]", its task's line [A]): a
// reader on its rwsem_waiter.task (waiter_task), a writer on its task state (task_state, which
// try_to_wake_up writes), an OSQ spinner behind the head on its OSQ node. The waker's store to
// it is the wake-up, so a release costs the count line, the wait_lock word (same line) and one
// store per woken waiter, however many wait: the waiters do not re-read the count.
//
// Sleeping: a queued waiter that is a task (RwSemSleep::current_task, a scheduler thread)
// sleeps as the kernel's does: set_current_state(TASK_UNINTERRUPTIBLE), check its line, and
// schedule() until the condition holds; the CPU switches to its idle task (x86:
// enter_lazy_tlb, so flushes skip it) and idles. The waker's wake_up_q() then runs
// try_to_wake_up() for each waiter it chose (readers too, after their grant): the TTWU queue,
// with an IPI unless the target idles polling. Waiters that are not tasks (unit tests' and the
// checker's CPU work) spin on their line with IRQs on. OSQ spinners always spin.
// docs/mechanisms.md "mmap_lock waiters" says what this leaves out: the lock hand-off bit
// (RWSEM_FLAG_HANDOFF, set after RWSEM_WAIT_TIMEOUT, 4 ms at HZ=250, beyond our runs), the
// spinner's owner_on_cpu() check (a writer owner that sleeps, for a VMA lock inside mmap, is
// still spun on), the sem->owner stores of each acquisition (the count's line, just taken),
// osq_lock's unqueueing (need_resched) and its prev->next store, and the list_head writes
// into the neighbouring waiters' stacks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"
#include "kernel/mm/spinlock.h"
#include "sim/task.h"

namespace ipisim::kernel {
struct Thread;
}

namespace ipisim::kernel::mm {

// How a queued rwsem waiter blocks: a task sleeps in schedule() until try_to_wake_up().
class RwSemSleep {
public:
    virtual ~RwSemSleep() = default;
    // The task running on `cpu`; nullptr when the context there is not a task (it spins).
    [[nodiscard]] virtual Thread* current_task(hw::CpuId cpu) const = 0;
    // schedule() of the current task of `cpu` (its state already set).
    virtual sim::Task<> schedule(hw::Cpu& cpu) = 0;
    // try_to_wake_up(t, TASK_NORMAL) from `self`.
    virtual sim::Task<> wake_up_process(hw::Cpu& self, Thread& t) = 0;
};

class RwSem {
public:
    static constexpr uint64_t WRITER_LOCKED = 1;
    static constexpr uint64_t FLAG_WAITERS = 2;
    static constexpr uint64_t READER_BIAS = 1U << 8;
    static constexpr uint64_t READER_MASK = ~(READER_BIAS - 1);
    static constexpr uint64_t LOCK_MASK = WRITER_LOCKED | READER_MASK;
    static constexpr uint64_t READ_FAILED_MASK = WRITER_LOCKED | FLAG_WAITERS;
    static constexpr size_t MAX_READERS_WAKEUP = 0x100;

    // `sleep`: how waiters that are tasks sleep (nullptr: every waiter spins).
    RwSem(hw::Memory& mem, const std::string& name, uint32_t home_node, RwSemSleep* sleep = nullptr);

    sim::Task<> down_read(hw::Cpu& cpu);
    // __down_read_trylock(): read the count, then try_cmpxchg it up by READER_BIAS until that
    // succeeds or the count has RWSEM_READ_FAILED_MASK (a writer, or waiters): never waits.
    // The loop is one write transaction after the load (Memory::add_unless_any).
    // The per-VMA lock's vma_start_read() is this (6.4-6.14; from 6.15 the same read +
    // try_cmpxchg loop on vm_refcnt, __refcount_inc_not_zero_limited_acquire).
    sim::Task<bool> down_read_trylock(hw::Cpu& cpu);
    sim::Task<> up_read(hw::Cpu& cpu);
    sim::Task<> down_write(hw::Cpu& cpu);
    sim::Task<> up_write(hw::Cpu& cpu);
    // downgrade_write(): the writer becomes a reader (one atomic add) and wakes the readers
    // queued at the head (rwsem_downgrade_wake).
    sim::Task<> downgrade_write(hw::Cpu& cpu);

    [[nodiscard]] hw::SimVar& count() const { return *count_; }
    [[nodiscard]] const SpinLock& wait_lock() const { return wait_lock_; }
    // The variables a waiting CPU spins on (one line per CPU, allocated at its first wait):
    // the reader's rwsem_waiter.task (changes when a waker grants it the lock) and the
    // writer's task state (changes when wake_up_q wakes it).
    [[nodiscard]] hw::SimVar& waiter_task(hw::CpuId cpu) { return *waiter_line(cpu).task; }
    [[nodiscard]] hw::SimVar& task_state(hw::CpuId cpu) { return *waiter_line(cpu).state; }
    [[nodiscard]] size_t nr_waiters() const { return wait_list_.size(); }
    // Waiters woken (writers) or granted the lock (readers) so far; optimistic-spin acquisitions.
    [[nodiscard]] uint64_t wakeups() const { return wakeups_; }
    [[nodiscard]] uint64_t spin_acquisitions() const { return spin_acquisitions_; }
    // schedule() calls of sleeping waiters (lockevent rwsem_sleep_reader + rwsem_sleep_writer).
    [[nodiscard]] uint64_t sleeps() const { return sleeps_; }
    // Writers that gave up spinning on a reader-owned lock (lockevent rwsem_opt_nospin).
    [[nodiscard]] uint64_t rspin_timeouts() const { return rspin_timeouts_; }
    // rwsem_rspin_threshold(): how long a writer spins on a reader-owned lock with the count
    // `count`: (10 + readers/2) us, at most 25 us.
    [[nodiscard]] static sim::Picos rwsem_rspin_threshold(uint64_t count);

private:
    enum class WakeType { any, readers, read_owned };
    struct Waiter {
        hw::CpuId cpu;
        bool write;
    };
    // The waiters rwsem_mark_wake chose, woken by wake_up_q after wait_lock is dropped: the
    // writer (its wake store and try_to_wake_up) or the readers it granted the lock
    // (try_to_wake_up only: the grant was their store).
    struct Wake {
        hw::CpuId cpu;
        bool write;
    };
    using WakeQ = std::vector<Wake>;

    sim::Task<bool> rwsem_optimistic_spin(hw::Cpu& cpu);
    sim::Task<> osq_lock(hw::Cpu& cpu);
    sim::Task<> osq_unlock(hw::Cpu& cpu);
    sim::Task<> rwsem_down_write_slowpath(hw::Cpu& cpu);
    sim::Task<> rwsem_down_read_slowpath(hw::Cpu& cpu, uint64_t count);
    sim::Task<bool> rwsem_try_write_lock(hw::Cpu& cpu);
    sim::Task<> rwsem_mark_wake(hw::Cpu& cpu, WakeType type, WakeQ& wake_q);
    sim::Task<> rwsem_wake(hw::Cpu& cpu, WakeType type);
    sim::Task<> wake_up_q(hw::Cpu& cpu, WakeQ& wake_q);
    // raw_spin_lock_irq / raw_spin_unlock_irq of wait_lock. IRQ masking nests here, so the
    // unlock restores the caller's state (down_read with IRQs off is a bug the kernel warns
    // about, might_sleep(), but the checker's tests build such deadlocks on purpose).
    sim::Task<> lock_wait_lock(hw::Cpu& cpu);
    sim::Task<> unlock_wait_lock(hw::Cpu& cpu);
    struct WaiterLine {
        hw::SimVar* task = nullptr;
        hw::SimVar* state = nullptr;
        hw::SimVar* osq_node = nullptr;  // its optimistic_spin_node.locked
        uint64_t task_seen = 0;          // the values at the last grant / wake / OSQ hand-off seen
        uint64_t state_seen = 0;
        uint64_t osq_seen = 0;
        Thread* sleeper = nullptr;  // the task that last queued from this CPU (nullptr: it spun)
    };
    WaiterLine& waiter_line(hw::CpuId cpu);
    // Wait until `v` (this CPU's waiter_task or task_state) differs from `seen`: a task
    // sleeps, anything else spins.
    sim::Task<> wait_for_change(hw::Cpu& cpu, hw::SimVar& v, uint64_t& seen);
    // Spin on `v` until it differs from `seen` (the OSQ: optimistic spinners never sleep).
    sim::Task<> spin_for_change(hw::Cpu& cpu, hw::SimVar& v, uint64_t& seen);
    // rwsem_mark_wake's grant to reader `r` (smp_store_release(&waiter->task, NULL)) and
    // wake_up_q's try_to_wake_up of writer `w`: one write to the waiter's line each.
    sim::Task<> grant(hw::Cpu& cpu, hw::CpuId r);
    sim::Task<> wake(hw::Cpu& cpu, hw::CpuId w);
    // A plain store of a value the waiter spinning on `v` for a change has not seen (the
    // kernel's smp_store_release / WRITE_ONCE of a hand-off: grant, osq_unlock).
    sim::Task<> hand_off(hw::Cpu& cpu, hw::SimVar& v);

    hw::Memory& mem_;
    RwSemSleep* sleep_;
    hw::SimVar* count_;
    hw::SimVar* osq_tail_;       // sem->osq.tail, on the count line
    hw::SimVar* owner_;          // sem->owner, on the count line: written only by rwsem_set_nonspinnable here
    bool nonspinnable_ = false;  // RWSEM_NONSPINNABLE in sem->owner (kept across readers)
    SpinLock wait_lock_;
    std::string name_;
    uint32_t home_node_;
    uint32_t label_;
    std::vector<hw::CpuId> osq_;     // the OSQ (an MCS queue), head first
    std::vector<Waiter> wait_list_;  // head first (vectors: a VMA lock that never waits allocates nothing)
    std::vector<std::unique_ptr<WaiterLine>> waiter_;  // per CPU, null until it waits
    uint64_t wakeups_ = 0;
    uint64_t spin_acquisitions_ = 0;
    uint64_t sleeps_ = 0;
    uint64_t rspin_timeouts_ = 0;
};

}  // namespace ipisim::kernel::mm
