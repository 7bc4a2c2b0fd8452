// try_to_wake_up() for bound threads (kernel/sched/core.c): ttwu_runnable, the TTWU queue
// (ttwu_queue_cond, __ttwu_queue_wakelist, sched_ttwu_pending) and the direct activation.
#include "kernel/costs.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/spinlock.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;

bool Sched::ttwu_queue_cond(CpuId self, CpuId cpu) const {
    const hw::Topology& topo = p_.topology();
    // A CPU that does not share the waker's cache: queue, to avoid touching remote rq data.
    if (topo.l3_of(self) != topo.l3_of(cpu)) return true;
    if (cpu == self) return false;
    // An idle target activates the task itself (the waker is likely busy).
    return nr_running(cpu) == 0;
}

sim::Task<> Sched::ttwu_do_activate(Cpu& self, Thread& t) {
    hw::Memory& mem = p_.memory();
    Rq& rq = rq_[t.cpu];
    co_await raw_spin_lock(self, mem, *rq.lock);
    co_await self.compute_cycles(costs::ttwu_do_activate);
    t.on_rq = true;
    rq.queue.push_back(&t);
    co_await raw_spin_unlock(self, mem, *rq.lock);
}

sim::Task<> Sched::sched_ttwu_pending(Cpu& self, Thread& t) {
    static const uint32_t l = hw::profile_label("sched_ttwu_pending");
    auto scope = self.function(l);
    co_await ttwu_do_activate(self, t);
}

sim::Task<bool> Sched::wake_up_process(Cpu& self, Thread& t) {
    static const uint32_t l = hw::profile_label("try_to_wake_up");
    auto scope = self.function(l);
    hw::Memory& mem = p_.memory();
    // raw_spin_lock_irqsave(&p->pi_lock); smp_mb__after_spinlock(): the waker's CONDITION (a
    // grant, a hand-off, done++: plain stores) is visible before it reads p->state, which pairs
    // with the sleeper's set_current_state() before it checks the CONDITION, so no wake-up is
    // lost. The lock's cmpxchg drains the waker's store buffer.
    self.local_irq_disable();  // nests: the restore below re-enables only what it disabled
    co_await raw_spin_lock(self, mem, *t.pi_lock);
    co_await self.compute_cycles(costs::try_to_wake_up);
    const bool woken = co_await ttwu_locked(self, t);
    co_await raw_spin_unlock(self, mem, *t.pi_lock);
    co_await self.local_irq_enable();
    co_return woken;
}

sim::Task<bool> Sched::ttwu_locked(Cpu& self, Thread& t) {
    if (t.state != TaskState::uninterruptible) co_return false;
    ++stats_.wakeups;
    t.state = TaskState::running;
    // ttwu_runnable(): it has not left its CPU yet; its schedule() now keeps it running.
    if (t.on_rq) co_return true;
    if (ttwu_queue_cond(self.id(), t.cpu)) {
        // __ttwu_queue_wakelist(): the task's wake_entry onto the target's call_single_queue;
        // IPI only if the queue was empty, or the polling-idle shortcut. [A] The node goes
        // through the async-CSD path (lock check, then run after unlock), not a TTWU-typed
        // third pass: same lines, same IPI rule.
        ++stats_.wakeups_queued;
        co_await k_.smp().smp_call_function_single_async(self, t.cpu, *t.wake_entry);
        co_return true;
    }
    ++stats_.wakeups_direct;
    co_await ttwu_do_activate(self, t);
    co_return true;
}

}  // namespace ipisim::kernel
