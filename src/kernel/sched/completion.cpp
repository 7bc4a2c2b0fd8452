#include "kernel/sched/completion.h"

#include <stdexcept>

#include "kernel/costs.h"
#include "kernel/sched/spinlock.h"

namespace ipisim::kernel {

namespace {
constexpr uint64_t kCompleteAll = 0xffffffffU;  // UINT_MAX: complete_all()
}  // namespace

Completion Completion::on_new_line(hw::Memory& mem, const std::string& name, uint32_t node) {
    return on_line(mem, mem.new_line(name, node));
}

Completion Completion::on_line(hw::Memory& mem, hw::CacheLine& line) {
    Completion x;
    x.lock = &mem.new_var(line, 0);
    x.done = &mem.new_var(line, 0);
    return x;
}

void reinit_completion(Completion& x) {
    x.done->poke(0);
}

sim::Task<> wait_for_completion(Sched& sched, hw::Cpu& cpu, Completion& x) {
    static const uint32_t l = hw::profile_label("wait_for_completion");
    auto scope = cpu.function(l, hw::Activity::kernel);
    Thread* me = sched.current(cpu.id());
    if (me == nullptr) throw std::logic_error("wait_for_completion: not called by a thread");
    hw::Memory& mem = sched.kernel().platform().memory();
    cpu.local_irq_disable();  // spin_lock_irq(&x->wait.lock)
    co_await raw_spin_lock(cpu, mem, *x.lock);
    co_await cpu.compute_cycles(costs::completion_op);
    uint64_t done = co_await mem.load(cpu.id(), *x.done);
    if (done == 0) {
        x.waiters.push_back(me);
        while (done == 0) {
            me->state = TaskState::uninterruptible;
            co_await raw_spin_unlock(cpu, mem, *x.lock);
            co_await cpu.local_irq_enable();
            co_await sched.schedule(cpu);
            cpu.local_irq_disable();
            co_await raw_spin_lock(cpu, mem, *x.lock);
            done = co_await mem.load(cpu.id(), *x.done);
        }
        std::erase(x.waiters, me);
    }
    co_await mem.store(cpu.id(), *x.done, done - 1);
    co_await raw_spin_unlock(cpu, mem, *x.lock);
    co_await cpu.local_irq_enable();
}

sim::Task<> complete(Sched& sched, hw::Cpu& cpu, Completion& x) {
    static const uint32_t l = hw::profile_label("complete");
    auto scope = cpu.function(l, hw::Activity::kernel);
    hw::Memory& mem = sched.kernel().platform().memory();
    cpu.local_irq_disable();  // spin_lock_irqsave(&x->wait.lock)
    co_await raw_spin_lock(cpu, mem, *x.lock);
    co_await cpu.compute_cycles(costs::completion_op);
    // if (x->done != UINT_MAX) x->done++: a plain load and store under the wait lock.
    const uint64_t done = co_await mem.load(cpu.id(), *x.done);
    if (done != kCompleteAll) co_await mem.store(cpu.id(), *x.done, done + 1);
    // swake_up_locked(): the first waiter.
    if (!x.waiters.empty()) co_await sched.wake_up_process(cpu, *x.waiters.front());
    co_await raw_spin_unlock(cpu, mem, *x.lock);
    co_await cpu.local_irq_enable();
}

}  // namespace ipisim::kernel
