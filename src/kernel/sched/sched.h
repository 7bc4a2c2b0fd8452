// The scheduler (kernel/sched/core.c, idle.c) for threads bound to CPUs: a per-CPU runqueue
// (FIFO, no load balancing, no timeslice or wake-up preemption); a CPU runs one thread at a
// time, or its idle task (the kernel's per-CPU context process) when none is runnable.
//
//   kernel::Sched sched(kernel);                     // installs itself in the idle loop
//   kernel::Thread& t = sched.spawn("fastcat", 0, body);  // runnable on CPU 0
//   kernel.boot();
//
// A switch costs the machine's cpu.context_switch on the CPU, charged as `__schedule`: the first
// half in the outgoing context (pick, deactivate), the second half in the incoming one
// (finish_task_switch). perf switches its per-task counters in between, so each thread's
// running time (sum_exec_runtime) includes half of each of its switches. Interrupts are off
// across the switch; one arriving meanwhile is taken by the incoming context when it re-enables
// them. Every switch sets Cpu::set_running so interrupts reach the running context.
//
// Wake-ups (ttwu.cpp): the x86 default with TTWU_QUEUE: a wake-up of a thread on another CPU
// that does not share the waker's L3, or whose CPU is idle (nr_running == 0), goes through the
// TTWU queue: the task's wake_entry CSD is pushed on the target's call_single_queue, with a
// CALL_FUNCTION_SINGLE IPI only when the queue was empty (or the polling-idle shortcut); the
// target activates it in its IPI handler and its idle loop schedules it. Otherwise the waker
// locks the target runqueue and enqueues it directly. RESCHEDULE IPIs are only for preemption,
// which is not modelled (a woken thread waits until the current one blocks).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/sched/cpuidle.h"
#include "kernel/sched/thread.h"

namespace ipisim::kernel {

// arch/x86/include/asm/irq_vectors.h: the local APIC timer (tick, hrtimers).
inline constexpr uint32_t LOCAL_TIMER_VECTOR = 0xec;

// context_switch()'s switch_mm_irqs_off / enter_lazy_tlb (kernel/sched/core.c), run in the
// outgoing context after the first half of the switch, with IRQs off.
class MmContextSwitch {
public:
    virtual ~MmContextSwitch() = default;
    virtual sim::Task<> switch_mm_irqs_off(hw::Cpu& cpu, uint64_t next_mm) = 0;
    virtual sim::Task<> enter_lazy_tlb(hw::Cpu& cpu) = 0;
};

struct SchedStats {
    uint64_t context_switches = 0;
    uint64_t wakeups = 0;         // successful try_to_wake_up()
    uint64_t wakeups_queued = 0;  // through the TTWU queue (CSD on call_single_queue)
    uint64_t wakeups_direct = 0;  // enqueued on the target runqueue by the waker
    uint64_t timer_interrupts = 0;
};

class Sched final : public IdleTaskHooks {
public:
    explicit Sched(Kernel& kernel);
    ~Sched() override;
    Sched(const Sched&) = delete;
    Sched& operator=(const Sched&) = delete;

    // kthread_create_on_cpu(): a thread bound to `cpu`, created asleep (start it with
    // wake_up_process).
    Thread& kthread_create_on_cpu(std::string name, hw::CpuId cpu, ThreadFn fn,
                                  hw::Activity activity = hw::Activity::kernel);
    // A thread created runnable (wake_up_new_task). The CPU notices it when its idle task next
    // looks: create before boot(), or for a CPU that is not in a non-polling idle state.
    Thread& spawn(std::string name, hw::CpuId cpu, ThreadFn fn, hw::Activity activity = hw::Activity::kernel);

    // schedule(), called by the context running on `cpu`: deactivates the current thread
    // unless it is TASK_RUNNING, switches to the next runnable one (or the idle task); returns
    // when the caller runs again.
    sim::Task<> schedule(hw::Cpu& cpu);
    // try_to_wake_up(p, TASK_NORMAL): false if it was not asleep. Takes p->pi_lock with IRQs
    // off (a locked RMW, so the caller's earlier stores are visible first).
    sim::Task<bool> wake_up_process(hw::Cpu& self, Thread& t);
    // The thread on `cpu` sleeps `d` (schedule_timeout_uninterruptible): a timer interrupt on
    // its CPU wakes it; the CPU idles meanwhile.
    sim::Task<> sleep_for(hw::Cpu& cpu, sim::Picos d);
    sim::Task<> msleep(hw::Cpu& cpu, uint64_t ms) { return sleep_for(cpu, sim::Picos(ms * 1'000'000'000ULL)); }

    // The mm layer's half of the context switch (nullptr: none).
    void set_mm_context_switch(MmContextSwitch* mm) { mm_switch_ = mm; }

    // The thread running on c (nullptr: the idle task or a non-thread context).
    [[nodiscard]] Thread* current(hw::CpuId c) const { return rq_.at(c).curr; }
    [[nodiscard]] uint32_t nr_running(hw::CpuId c) const;
    [[nodiscard]] const SchedStats& stats() const { return stats_; }
    [[nodiscard]] Kernel& kernel() { return k_; }
    [[nodiscard]] Cpuidle& cpuidle() { return cpuidle_; }
    // Running time of t as of now (including the current stint).
    [[nodiscard]] sim::Picos runtime(const Thread& t) const;

    // IdleTaskHooks
    [[nodiscard]] bool need_resched(hw::CpuId c) const override { return !rq_.at(c).queue.empty(); }
    sim::Task<> schedule_idle(hw::Cpu& cpu) override { return schedule(cpu); }
    void cpuidle_select(hw::Cpu& cpu) override { cpuidle_.select(cpu, next_timer(cpu.id())); }
    void cpuidle_reflect(hw::Cpu& cpu) override { cpuidle_.reflect(cpu); }

private:
    struct Rq {
        Thread* curr = nullptr;      // nullptr: the idle task
        std::vector<Thread*> queue;  // runnable, not running (FIFO; a vector: an empty deque allocates)
        hw::SimVar* lock = nullptr;  // rq->__lock (its cache line)
        bool idle_may_run = false;   // switch-in handshake of the idle task
        sim::Signal idle_switched_in;
        std::vector<Thread*> expired;    // timers fired, for the LOCAL_TIMER handler
        std::vector<sim::Picos> timers;  // pending sleep_for() expiries on this CPU (absolute)
    };

    Thread& create(std::string name, hw::CpuId cpu, ThreadFn fn, hw::Activity activity);
    sim::Proc thread_main(Thread& t);
    // Off the CPU: waits (masked) for the switch that hands it the CPU.
    static sim::Task<> wait_switch_in(bool& may_run, sim::Signal& sig);
    // The incoming half of the switch, then interrupts back on.
    static sim::Task<> finish_task_switch(hw::Cpu& cpu);
    // ttwu.cpp
    [[nodiscard]] bool ttwu_queue_cond(hw::CpuId self, hw::CpuId cpu) const;
    sim::Task<> ttwu_do_activate(hw::Cpu& self, Thread& t);
    // try_to_wake_up() under p->pi_lock: the state check, ttwu_runnable, the TTWU queue or the
    // direct activation.
    sim::Task<bool> ttwu_locked(hw::Cpu& self, Thread& t);
    sim::Task<> sched_ttwu_pending(hw::Cpu& self, Thread& t);
    // timer.cpp
    // The time from now to the CPU's closest pending timer (MENU_NO_TIMER: none).
    [[nodiscard]] sim::Picos next_timer(hw::CpuId c) const;
    static void on_timer(void* obj, uint32_t arg);
    sim::Task<> local_timer_interrupt(hw::Cpu& cpu);

    Kernel& k_;
    hw::Platform& p_;
    std::vector<Rq> rq_;
    std::vector<std::unique_ptr<Thread>> threads_;
    Cpuidle cpuidle_;
    SchedStats stats_;
    MmContextSwitch* mm_switch_ = nullptr;
};

}  // namespace ipisim::kernel
