#include "kernel/workqueue/workqueue.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "kernel/costs.h"
#include "kernel/sched/spinlock.h"

namespace ipisim::kernel {

using hw::Cpu;
using hw::CpuId;

Workqueue::Workqueue(Sched& sched) : sched_(sched), p_(sched.kernel().platform()), pools_(p_.nr_cpus()) {
    for (CpuId c = 0; c < p_.nr_cpus(); ++c) {
        hw::CacheLine& line = p_.memory().new_line(fmt::format("worker_pool[{}]", c), p_.topology().node_of(c));
        pools_[c].lock = &p_.memory().new_var(line, 0);
        pools_[c].worklist = &p_.memory().new_var(line, 0);
    }
}

Thread& Workqueue::worker(CpuId cpu) {
    WorkerPool& pool = pools_.at(cpu);
    if (pool.worker == nullptr) {
        pool.worker = &sched_.kthread_create_on_cpu(fmt::format("kworker/{}:1", cpu), cpu,
                                                    [this](Cpu& c, Thread& t) { return worker_thread(c, t); });
    }
    return *pool.worker;
}

sim::Task<bool> Workqueue::queue_work_on(Cpu& self, CpuId cpu, WorkStruct& work) {
    static const uint32_t l = hw::profile_label("queue_work_on");
    auto scope = self.function(l, hw::Activity::kernel);
    if (work.pending) co_return false;  // test_and_set_bit(WORK_STRUCT_PENDING_BIT)
    work.pending = true;
    hw::Memory& mem = p_.memory();
    WorkerPool& pool = pools_.at(cpu);
    Thread& w = worker(cpu);
    self.local_irq_disable();
    co_await self.compute_cycles(costs::queue_work_on);
    co_await raw_spin_lock(self, mem, *pool.lock);
    // insert_work(): list_add_tail onto pool->worklist.
    pool.items.push_back(&work);
    co_await mem.store(self.id(), *pool.worklist, pool.items.size());
    ++stats_.queued;
    // kick_pool(): need_more_worker() -> wake the idle kworker.
    if (pool.nr_running == 0) {
        ++stats_.worker_wakeups;
        pool.nr_running = 1;
        co_await sched_.wake_up_process(self, w);
    }
    co_await raw_spin_unlock(self, mem, *pool.lock);
    co_await self.local_irq_enable();
    co_return true;
}

sim::Task<> Workqueue::worker_thread(Cpu& cpu, Thread& self) {
    hw::Memory& mem = p_.memory();
    WorkerPool& pool = pools_[cpu.id()];
    for (;;) {
        cpu.local_irq_disable();
        co_await raw_spin_lock(cpu, mem, *pool.lock);
        pool.nr_running = 1;  // worker_leave_idle
        while (!pool.items.empty()) {
            WorkStruct* w = pool.items.front();
            pool.items.pop_front();
            co_await mem.store(cpu.id(), *pool.worklist, pool.items.size());
            w->pending = false;
            co_await raw_spin_unlock(cpu, mem, *pool.lock);
            co_await cpu.local_irq_enable();
            {
                static const uint32_t l = hw::profile_label("process_one_work");
                auto scope = cpu.function(l, hw::Activity::kernel);
                co_await cpu.compute_cycles(costs::process_one_work);
                auto fn = w->func;  // the item may be reused once it completes
                co_await fn(cpu);
                ++stats_.executed;
            }
            cpu.local_irq_disable();
            co_await raw_spin_lock(cpu, mem, *pool.lock);
        }
        // worker_enter_idle(), then sleep until kicked.
        pool.nr_running = 0;
        self.state = TaskState::uninterruptible;
        co_await raw_spin_unlock(cpu, mem, *pool.lock);
        co_await cpu.local_irq_enable();
        co_await sched_.schedule(cpu);
    }
}

Workqueue::OnStack& Workqueue::on_stack(Thread& t) {
    const auto it = std::find(stack_owner_.begin(), stack_owner_.end(), &t);
    if (it != stack_owner_.end()) return *stacks_[static_cast<size_t>(it - stack_owner_.begin())];
    auto s = std::make_unique<OnStack>();
    s->done = Completion::on_new_line(p_.memory(), fmt::format("smp_call_on_cpu_struct@{}", t.name),
                                      p_.topology().node_of(t.cpu));
    stack_owner_.push_back(&t);
    stacks_.push_back(std::move(s));
    return *stacks_.back();
}

sim::Task<int> Workqueue::smp_call_on_cpu(Cpu& self, CpuId cpu, std::function<sim::Task<int>(Cpu&)> func,
                                          bool /*phys*/) {
    static const uint32_t l = hw::profile_label("smp_call_on_cpu");
    auto scope = self.function(l, hw::Activity::kernel);
    Thread* me = sched_.current(self.id());
    if (me == nullptr) throw std::logic_error("smp_call_on_cpu: not called by a thread (it sleeps)");
    co_await self.compute_cycles(costs::smp_call_on_cpu);
    if (cpu >= p_.nr_cpus() || !sched_.kernel().smp().cpu_online_mask().test(cpu)) co_return -kENXIO;
    OnStack& s = on_stack(*me);
    reinit_completion(s.done);
    s.ret = 0;
    // smp_call_on_cpu_callback(): run func, store its result, complete().
    s.work.func = [this, &s, func = std::move(func)](Cpu& c) -> sim::Task<> {
        s.ret = co_await func(c);
        co_await complete(sched_, c, s.done);
    };
    co_await queue_work_on(self, cpu, s.work);
    co_await wait_for_completion(sched_, self, s.done);
    co_return s.ret;
}

}  // namespace ipisim::kernel
