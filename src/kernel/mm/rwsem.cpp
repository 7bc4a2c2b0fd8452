#include "kernel/mm/rwsem.h"

#include <fmt/format.h>

#include <algorithm>

#include "hw/check_hooks.h"
#include "hw/cpu/spin.h"
#include "kernel/sched/thread.h"

namespace ipisim::kernel::mm {

namespace {
constexpr uint64_t neg(uint64_t x) {
    return ~x + 1;
}
}  // namespace

RwSem::RwSem(hw::Memory& mem, const std::string& name, uint32_t home_node, RwSemSleep* sleep)
    : mem_(mem),
      sleep_(sleep),
      count_(&mem.new_aligned_var(name, home_node)),
      osq_tail_(&mem.new_var(count_->line())),
      owner_(&mem.new_var(count_->line())),
      wait_lock_(mem, mem.new_var(count_->line()), name + ".wait_lock", home_node),
      name_(name),
      home_node_(home_node),
      label_(hw::profile_label(name)) {}

RwSem::WaiterLine& RwSem::waiter_line(hw::CpuId cpu) {
    if (cpu >= waiter_.size()) waiter_.resize(cpu + 1);
    if (waiter_[cpu] == nullptr) waiter_[cpu] = std::make_unique<WaiterLine>();
    WaiterLine& w = *waiter_[cpu];
    if (w.task == nullptr) {
        w.task = &mem_.new_aligned_var(fmt::format("{}.waiter[{}]", name_, cpu), home_node_);
        w.state = &mem_.new_var(w.task->line());
        w.osq_node = &mem_.new_var(w.task->line());
    }
    return w;
}

sim::Task<> RwSem::lock_wait_lock(hw::Cpu& cpu) {
    cpu.local_irq_disable();  // raw_spin_lock_irq(&sem->wait_lock)
    co_await wait_lock_.lock(cpu);
}

sim::Task<> RwSem::unlock_wait_lock(hw::Cpu& cpu) {
    co_await wait_lock_.unlock(cpu);
    co_await cpu.local_irq_enable();
}

sim::Task<> RwSem::spin_for_change(hw::Cpu& cpu, hw::SimVar& v, uint64_t& seen) {
    IPISIM_CHECK_HOOK(lock_queued(cpu.id(), v, *count_));
    const uint64_t before = seen;
    seen = co_await hw::spin_until(cpu, mem_, v, [before](uint64_t x) { return x != before; });
}

sim::Task<> RwSem::wait_for_change(hw::Cpu& cpu, hw::SimVar& v, uint64_t& seen) {
    Thread* const task = sleep_ != nullptr ? sleep_->current_task(cpu.id()) : nullptr;
    WaiterLine& self = waiter_line(cpu.id());
    self.sleeper = task;
    if (task == nullptr) {
        co_await spin_for_change(cpu, v, seen);
        co_return;
    }
    IPISIM_CHECK_HOOK(lock_queued(cpu.id(), v, *count_));
    IPISIM_CHECK_HOOK(sleep_begin(cpu.id(), v));
    // for (;;) { set_current_state(TASK_UNINTERRUPTIBLE); if (granted) break; schedule(); }
    for (;;) {
        // set_current_state(): smp_store_mb(current->__state, ...), a full barrier before the
        // check (x86: xchg), paired with try_to_wake_up()'s after its CONDITION store.
        task->state = TaskState::uninterruptible;
        co_await mem_.fence(cpu.id());
        const uint64_t x = co_await mem_.load(cpu.id(), v);
        if (x != seen) {
            seen = x;
            break;
        }
        ++sleeps_;
        co_await sleep_->schedule(cpu);
    }
    task->state = TaskState::running;  // __set_current_state(TASK_RUNNING)
    IPISIM_CHECK_HOOK(sleep_end(cpu.id(), v));
}

sim::Task<> RwSem::grant(hw::Cpu& cpu, hw::CpuId r) {
    ++wakeups_;
    // rwsem_mark_wake(): smp_store_release(&waiter->task, NULL), a plain store (x86: a MOV).
    co_await hand_off(cpu, waiter_task(r));
}

sim::Task<> RwSem::hand_off(hw::Cpu& cpu, hw::SimVar& v) {
    co_await mem_.store(cpu.id(), v, mem_.peek(cpu.id(), v) + 1);
}

// try_to_wake_up(): WRITE_ONCE(p->__state, TASK_RUNNING), a plain store (the waiter's state
// line; for a sleeping task wake_up_process() below models the rest of ttwu).
sim::Task<> RwSem::wake(hw::Cpu& cpu, hw::CpuId w) {
    ++wakeups_;
    co_await hand_off(cpu, task_state(w));
}

sim::Task<> RwSem::wake_up_q(hw::Cpu& cpu, WakeQ& wake_q) {
    for (const Wake& w : wake_q) {
        if (w.write) co_await wake(cpu, w.cpu);
        // try_to_wake_up() of a waiter that sleeps (or slept here before: then it is running
        // and the call only checks its state).
        Thread* const t = waiter_line(w.cpu).sleeper;
        if (t != nullptr) co_await sleep_->wake_up_process(cpu, *t);
    }
    wake_q.clear();
}

sim::Task<> RwSem::rwsem_mark_wake(hw::Cpu& cpu, WakeType type, WakeQ& wake_q) {
    const hw::CpuId me = cpu.id();
    // The first waiter a writer: only it is woken (it takes the lock itself), and only for ANY.
    if (wait_list_.front().write) {
        if (type == WakeType::any) wake_q.push_back({wait_list_.front().cpu, true});
        co_return;
    }
    // Grant the first reader before counting, to back out if a writer stole the lock.
    uint64_t adjustment = 0;
    if (type != WakeType::read_owned) {
        adjustment = READER_BIAS;
        const uint64_t old = co_await mem_.fetch_add(me, *count_, READER_BIAS);
        if ((old & WRITER_LOCKED) != 0) {
            co_await mem_.fetch_add(me, *count_, neg(READER_BIAS));
            co_return;
        }
    }
    // Up to MAX_READERS_WAKEUP readers from the whole list (phase-fair); writers stay queued.
    std::vector<hw::CpuId> woken;
    for (auto it = wait_list_.begin(); it != wait_list_.end() && woken.size() < MAX_READERS_WAKEUP;) {
        if (it->write) {
            ++it;
            continue;
        }
        woken.push_back(it->cpu);
        it = wait_list_.erase(it);
    }
    uint64_t delta = woken.size() * READER_BIAS - adjustment;
    if (wait_list_.empty()) delta -= FLAG_WAITERS;
    if (delta != 0) co_await mem_.fetch_add(me, *count_, delta);
    for (hw::CpuId r : woken) {
        co_await grant(cpu, r);  // smp_store_release(&waiter->task, NULL)
        wake_q.push_back({r, false});
    }
}

sim::Task<> RwSem::rwsem_wake(hw::Cpu& cpu, WakeType type) {
    auto scope = cpu.function(label_);
    WakeQ wake_q;
    co_await lock_wait_lock(cpu);  // raw_spin_lock_irqsave
    if (!wait_list_.empty()) co_await rwsem_mark_wake(cpu, type, wake_q);
    co_await unlock_wait_lock(cpu);
    co_await wake_up_q(cpu, wake_q);
}

sim::Task<bool> RwSem::rwsem_try_write_lock(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    uint64_t c = co_await mem_.load(me, *count_);
    for (;;) {
        if ((c & LOCK_MASK) != 0) co_return false;
        uint64_t want = c | WRITER_LOCKED;
        if (wait_list_.size() == 1) want &= ~FLAG_WAITERS;  // list_is_singular: we are the last
        const uint64_t old = co_await mem_.cmpxchg(me, *count_, c, want);
        if (old == c) break;
        c = old;
    }
    for (auto it = wait_list_.begin(); it != wait_list_.end(); ++it) {
        if (it->cpu == me) {
            wait_list_.erase(it);
            break;
        }
    }
    co_return true;
}

sim::Task<> RwSem::osq_lock(hw::Cpu& cpu) {
    // kernel/locking/osq_lock.c: xchg of the tail; with a predecessor, wait on our own node
    // until it hands us the head (node->locked).
    const hw::CpuId me = cpu.id();
    WaiterLine& self = waiter_line(me);
    osq_.push_back(me);
    co_await mem_.xchg(me, *osq_tail_, me + 1);
    if (osq_.front() == me) co_return;
    co_await spin_for_change(cpu, *self.osq_node, self.osq_seen);
}

sim::Task<> RwSem::osq_unlock(hw::Cpu& cpu) {
    // cmpxchg of the tail back to unlocked (it fails, still a write, when a successor
    // queued), then the successor's WRITE_ONCE(next->locked, 1), a plain store.
    const hw::CpuId me = cpu.id();
    osq_.erase(osq_.begin());
    co_await mem_.cmpxchg(me, *osq_tail_, me + 1, 0);
    if (!osq_.empty()) co_await hand_off(cpu, *waiter_line(osq_.front()).osq_node);
}

sim::Picos RwSem::rwsem_rspin_threshold(uint64_t count) {
    // (10 + readers/2) us, at most 25 us (30 readers).
    const uint64_t readers = std::min<uint64_t>(count >> 8, 30);
    return sim::Picos((20 + readers) * 1'000'000 / 2);
}

sim::Task<bool> RwSem::rwsem_optimistic_spin(hw::Cpu& cpu) {
    // rwsem_can_spin_on_owner(): not after a writer gave up on this reader-owned phase
    // (RWSEM_NONSPINNABLE); a writer owner always runs here.
    if (nonspinnable_) co_return false;
    const hw::CpuId me = cpu.id();
    co_await osq_lock(cpu);
    bool taken = false;
    bool reader_owned = false;  // prev_owner_state == OWNER_READER
    sim::Picos deadline;
    for (;;) {
        // rwsem_spin_on_owner(): while a (running) writer owns it.
        uint64_t v = co_await hw::spin_until(cpu, mem_, *count_, [](uint64_t x) { return (x & WRITER_LOCKED) == 0; });
        if ((v & READER_MASK) != 0) {
            // OWNER_READER: spin until the readers leave (or a writer comes), for at most
            // rwsem_rspin_threshold(); then mark the lock nonspinnable and queue.
            if (!reader_owned) {
                if (nonspinnable_) break;
                deadline = cpu.now() + rwsem_rspin_threshold(v);
                reader_owned = true;
            }
            const hw::BoundedSpin r = co_await hw::spin_until_deadline(
                cpu, mem_, *count_, [](uint64_t x) { return (x & LOCK_MASK) == 0 || (x & WRITER_LOCKED) != 0; },
                deadline);
            if (!r.satisfied) {
                // rwsem_set_nonspinnable(): a cmpxchg on sem->owner (the count's line).
                co_await mem_.fetch_or(me, *owner_, 1);
                nonspinnable_ = true;
                ++rspin_timeouts_;
                break;
            }
            v = r.value;
            if ((v & WRITER_LOCKED) != 0) {
                reader_owned = false;
                continue;
            }
        } else {
            reader_owned = false;
        }
        // rwsem_try_write_lock_unqueued(), which may take it from queued waiters.
        if (co_await mem_.cmpxchg(me, *count_, v, v | WRITER_LOCKED) == v) {
            taken = true;
            break;
        }
    }
    co_await osq_unlock(cpu);
    if (taken) ++spin_acquisitions_;
    co_return taken;
}

sim::Task<> RwSem::rwsem_down_write_slowpath(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    WaiterLine& self = waiter_line(me);
    co_await lock_wait_lock(cpu);
    const bool first = wait_list_.empty();
    wait_list_.push_back({me, true});
    if (!first) {
        // Waiters ahead of us and no writer owns it: wake them (the readers if readers own it).
        const uint64_t c = co_await mem_.load(me, *count_);
        if ((c & WRITER_LOCKED) == 0) {
            WakeQ wake_q;
            co_await rwsem_mark_wake(cpu, (c & READER_MASK) != 0 ? WakeType::readers : WakeType::any, wake_q);
            if (!wake_q.empty()) {
                co_await unlock_wait_lock(cpu);
                co_await wake_up_q(cpu, wake_q);
                co_await lock_wait_lock(cpu);
            }
        }
    } else {
        co_await mem_.fetch_or(me, *count_, FLAG_WAITERS);
    }
    while (!co_await rwsem_try_write_lock(cpu)) {
        co_await unlock_wait_lock(cpu);
        co_await wait_for_change(cpu, *self.state, self.state_seen);
        co_await lock_wait_lock(cpu);
    }
    co_await unlock_wait_lock(cpu);
}

sim::Task<> RwSem::rwsem_down_read_slowpath(hw::Cpu& cpu, uint64_t count) {
    const hw::CpuId me = cpu.id();
    const uint64_t readers = count >> 8;
    const bool writer = (count & WRITER_LOCKED) != 0;
    // Reader-owned with other readers: queue, so a stream of readers cannot starve a waiter.
    // No writer otherwise: keep our bias (reader lock stealing); the first reader wakes the
    // queued readers to join it.
    if (!writer && readers == 1) {
        if ((count & FLAG_WAITERS) != 0) co_await rwsem_wake(cpu, WakeType::read_owned);
        co_return;
    }
    WaiterLine& self = waiter_line(me);
    uint64_t adjustment = neg(READER_BIAS);
    co_await lock_wait_lock(cpu);
    if (wait_list_.empty()) {
        const uint64_t c = co_await mem_.load(me, *count_);
        if ((c & WRITER_LOCKED) == 0) {
            co_await unlock_wait_lock(cpu);
            co_return;
        }
        adjustment += FLAG_WAITERS;
    }
    wait_list_.push_back({me, false});
    const uint64_t c = co_await mem_.fetch_add(me, *count_, adjustment) + adjustment;
    WakeQ wake_q;
    // No owner left, or readers own it and we are the first waiter: wake (maybe ourselves).
    if ((c & LOCK_MASK) == 0 || ((c & WRITER_LOCKED) == 0 && (adjustment & FLAG_WAITERS) != 0)) {
        co_await rwsem_mark_wake(cpu, WakeType::any, wake_q);
    }
    co_await unlock_wait_lock(cpu);
    co_await wake_up_q(cpu, wake_q);
    co_await wait_for_change(cpu, *self.task, self.task_seen);  // until waiter.task == NULL
}

sim::Task<> RwSem::down_read(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    const uint64_t old = co_await mem_.fetch_add(me, *count_, READER_BIAS);  // rwsem_read_trylock
    if ((old & READ_FAILED_MASK) != 0) {
        auto scope = cpu.function(label_);
        co_await rwsem_down_read_slowpath(cpu, old + READER_BIAS);
    }
    IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/false));
}

sim::Task<bool> RwSem::down_read_trylock(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    const uint64_t tmp = co_await mem_.load(me, *count_);
    if ((tmp & READ_FAILED_MASK) != 0) co_return false;
    // The try_cmpxchg loop: its retries hit the line its failed attempt took (Memory::add_unless_any).
    const uint64_t old = co_await mem_.add_unless_any(me, *count_, READER_BIAS, READ_FAILED_MASK);
    if ((old & READ_FAILED_MASK) != 0) co_return false;
    IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/false));
    co_return true;
}

sim::Task<> RwSem::up_read(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/false));
    const uint64_t c = co_await mem_.fetch_add(cpu.id(), *count_, neg(READER_BIAS)) - READER_BIAS;
    if ((c & (LOCK_MASK | FLAG_WAITERS)) == FLAG_WAITERS) co_await rwsem_wake(cpu, WakeType::any);
}

sim::Task<> RwSem::down_write(hw::Cpu& cpu) {
    const hw::CpuId me = cpu.id();
    const uint64_t fast = co_await mem_.cmpxchg(me, *count_, 0, WRITER_LOCKED);  // rwsem_write_trylock
    if (fast != 0) {
        auto scope = cpu.function(label_);
        if (!co_await rwsem_optimistic_spin(cpu)) co_await rwsem_down_write_slowpath(cpu);
    }
    nonspinnable_ = false;  // rwsem_set_owner(): the owner word without flags
    IPISIM_CHECK_HOOK(rwsem_acquired(me, *count_, /*write=*/true));
}

sim::Task<> RwSem::up_write(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/true));
    const uint64_t old = co_await mem_.fetch_add(cpu.id(), *count_, neg(WRITER_LOCKED));
    if ((old & FLAG_WAITERS) != 0) co_await rwsem_wake(cpu, WakeType::any);
}

sim::Task<> RwSem::downgrade_write(hw::Cpu& cpu) {
    IPISIM_CHECK_HOOK(rwsem_released(cpu.id(), *count_, /*write=*/true));
    IPISIM_CHECK_HOOK(rwsem_acquired(cpu.id(), *count_, /*write=*/false));
    const uint64_t old = co_await mem_.fetch_add(cpu.id(), *count_, READER_BIAS - WRITER_LOCKED);
    if ((old & FLAG_WAITERS) != 0) co_await rwsem_wake(cpu, WakeType::read_owned);  // rwsem_downgrade_wake
}

}  // namespace ipisim::kernel::mm
