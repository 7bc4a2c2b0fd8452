// Threads, schedule() and the context switch (kernel/sched/core.c).
#include <fmt/format.h>

#include <stdexcept>

#include "kernel/sched/sched.h"

namespace ipisim::kernel {

using hw::Activity;
using hw::Cpu;
using hw::CpuId;

Sched::Sched(Kernel& kernel)
    : k_(kernel),
      p_(kernel.platform()),
      rq_(p_.nr_cpus()),
      cpuidle_(p_.nr_cpus(), kernel.tick(), kernel.version() == Version{} || kernel.version() >= Version{6, 15}) {
    // The tick's handler in profiles and traces: x86's local APIC timer entry, or the arm64 arch
    // timer's handler of a host kernel (drivers/clocksource/arm_arch_timer.c: with EL2 there,
    // arch_timer_select_ppi() picks the physical timer, whose PPI runs arch_timer_handler_phys).
    const char* tick_name =
        p_.spec().arch == hw::Arch::arm64 ? "arch_timer_handler_phys" : "sysvec_apic_timer_interrupt";
    for (CpuId c = 0; c < p_.nr_cpus(); ++c) {
        rq_[c].lock = &p_.memory().new_aligned_var(fmt::format("rq[{}].__lock", c), p_.topology().node_of(c));
        p_.cpu(c).set_irq_handler(LOCAL_TIMER_VECTOR, tick_name,
                                  [this](Cpu& cpu, const sim::Interrupt&) { return local_timer_interrupt(cpu); });
    }
    k_.set_idle_task_hooks(this);
}

Sched::~Sched() {
    k_.set_idle_task_hooks(nullptr);
}

uint32_t Sched::nr_running(CpuId c) const {
    const Rq& rq = rq_.at(c);
    return static_cast<uint32_t>(rq.queue.size()) + (rq.curr != nullptr ? 1U : 0U);
}

sim::Picos Sched::runtime(const Thread& t) const {
    return t.runtime(p_.engine().now(), rq_.at(t.cpu).curr == &t);
}

Thread& Sched::create(std::string name, CpuId cpu, ThreadFn fn, Activity activity) {
    if (cpu >= p_.nr_cpus()) throw std::out_of_range(fmt::format("thread {}: no cpu{}", name, cpu));
    auto t = std::make_unique<Thread>();
    t->name = std::move(name);
    t->cpu = cpu;
    t->sched = this;
    t->fn = std::move(fn);
    t->label = hw::profile_label(t->name);
    t->activity = activity;
    t->wake_entry = &k_.smp().alloc_csd(cpu, "wake_entry");
    t->pi_lock = &p_.memory().new_aligned_var(fmt::format("{}.pi_lock", t->name), p_.topology().node_of(cpu));
    Thread& ref = *t;
    // sched_ttwu_pending() for this task, run from the target's call_single_queue.
    ref.wake_entry->fn = [this, &ref](Cpu& self) { return sched_ttwu_pending(self, ref); };
    threads_.push_back(std::move(t));
    ref.proc = &p_.engine().spawn(ref.name, thread_main(ref));
    ref.proc->mask();  // born inside __schedule: interrupts off until its first switch-in ends
    return ref;
}

Thread& Sched::kthread_create_on_cpu(std::string name, CpuId cpu, ThreadFn fn, Activity activity) {
    return create(std::move(name), cpu, std::move(fn), activity);
}

Thread& Sched::spawn(std::string name, CpuId cpu, ThreadFn fn, Activity activity) {
    Thread& t = create(std::move(name), cpu, std::move(fn), activity);
    t.state = TaskState::running;
    t.on_rq = true;
    rq_[cpu].queue.push_back(&t);
    p_.cpu(cpu).wake_polling();
    return t;
}

sim::Proc Sched::thread_main(Thread& t) {
    Cpu& cpu = p_.cpu(t.cpu);
    co_await wait_switch_in(t.may_run, t.switched_in);
    {
        static const uint32_t l = hw::profile_label("__schedule");
        auto scope = cpu.function(l, Activity::kernel);
        co_await finish_task_switch(cpu);
    }
    cpu.set_activity(t.label, t.activity);
    co_await t.fn(cpu, t);
    // do_task_dead(): never runs again.
    t.state = TaskState::dead;
    co_await schedule(cpu);
}

sim::Task<> Sched::wait_switch_in(bool& may_run, sim::Signal& sig) {
    while (!may_run) {
        co_await sig.wait();  // masked: nothing detaches it
    }
    may_run = false;
}

sim::Task<> Sched::finish_task_switch(Cpu& cpu) {
    // The second half of the switch, in the incoming context; then interrupts back on.
    const sim::Picos cs = cpu.costs().context_switch;
    co_await cpu.compute(cs - cs / 2);
    co_await cpu.local_irq_enable();
}

sim::Task<> Sched::schedule(Cpu& cpu) {
    static const uint32_t l = hw::profile_label("__schedule");
    // Not a Scope: a dying thread never returns here to restore its label.
    const uint32_t saved_label = cpu.profile().label();
    const Activity saved_activity = cpu.profile().activity();
    cpu.set_activity(l, Activity::kernel);
    const CpuId c = cpu.id();
    Rq& rq = rq_[c];
    cpu.local_irq_disable();
    // __schedule() up to context_switch(): rq lock, deactivate, pick_next_task, perf sched_out.
    co_await cpu.compute(cpu.costs().context_switch / 2);
    Thread* prev = rq.curr;
    if (prev != nullptr && prev->state != TaskState::running) {
        prev->on_rq = false;  // deactivate_task
        if (prev->state != TaskState::dead) ++prev->nvcsw;
    }
    Thread* next = nullptr;
    if (prev != nullptr && prev->on_rq) {
        next = prev;  // still runnable (woken before it got here): no preemption, keep running
    } else if (!rq.queue.empty()) {
        next = rq.queue.front();
        rq.queue.erase(rq.queue.begin());
    }
    if (next == prev) {
        co_await cpu.local_irq_enable();
        cpu.set_activity(saved_label, saved_activity);
        co_return;
    }
    // context_switch(): hand the CPU over.
    ++stats_.context_switches;
    const sim::Picos now = cpu.now();
    if (prev != nullptr) prev->sum_exec_runtime += now - prev->exec_start;
    if (next != nullptr) {
        next->exec_start = now;
        ++next->switches_in;
    }
    rq.curr = next;
    // context_switch(): a thread's user mm, else the previous mm kept lazily.
    if (mm_switch_ != nullptr) {
        if (next != nullptr && next->mm != 0) {
            co_await mm_switch_->switch_mm_irqs_off(cpu, next->mm);
        } else {
            co_await mm_switch_->enter_lazy_tlb(cpu);
        }
    }
    sim::Process& prev_proc = *cpu.running();
    sim::Process& next_proc = next != nullptr ? *next->proc : *k_.idle_task(c);
    // Interrupts that arrived with IRQs off belong to the CPU: the incoming context takes them.
    while (prev_proc.has_pending()) next_proc.interrupt(prev_proc.take_pending());
    cpu.set_running(&next_proc);
    bool& next_may_run = next != nullptr ? next->may_run : rq.idle_may_run;
    sim::Signal& next_sig = next != nullptr ? next->switched_in : rq.idle_switched_in;
    next_may_run = true;
    next_sig.notify_one();
    if (prev != nullptr && prev->state == TaskState::dead) co_return;  // never switched back in
    // Off the CPU until switched back in.
    if (prev != nullptr) {
        co_await wait_switch_in(prev->may_run, prev->switched_in);
    } else {
        co_await wait_switch_in(rq.idle_may_run, rq.idle_switched_in);
    }
    co_await finish_task_switch(cpu);
    cpu.set_activity(saved_label, saved_activity);
}

}  // namespace ipisim::kernel
