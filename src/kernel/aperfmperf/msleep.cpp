#include "kernel/aperfmperf/msleep.h"

#include "kernel/costs.h"
#include "kernel/time/tick.h"

namespace ipisim::kernel {

namespace {

// arch/x86/include/asm/irq_vectors.h (also declared by kernel/sched/sched.h)
constexpr uint32_t kLocalTimerVector = 0xec;
constexpr uint32_t kTimerTagBase = 0x0E00'0000;
// The local timer interrupt that ends the sleep: hrtimer_interrupt and the expiry (the
// scheduler's costs::local_timer_interrupt, as kernel/sched/timer.cpp pays it), then
// wake_up_process() of the sleeper on this CPU (try_to_wake_up + ttwu_do_activate, as
// kernel/sched/ttwu.cpp pays them for a local wake-up). One set of costs for one interrupt.
constexpr sim::Cycles kTimerInterrupt = costs::local_timer_interrupt + costs::try_to_wake_up + costs::ttwu_do_activate;

void fire_local_timer(void* obj, uint32_t) {
    static_cast<hw::Cpu*>(obj)->raise(sim::Interrupt{kLocalTimerVector, 0});
}

}  // namespace

sim::Picos msleep_expiry(sim::Picos now, uint64_t ms, uint32_t hz) {
    // TICK_NSEC; the expiry is a jiffy boundary (an idle CPU's stopped tick is reprogrammed
    // from last_jiffies_update, not from its skew_tick offset).
    const uint64_t tick = tick_nsec(hz).count();
    const uint64_t jiffies = now.count() / tick;
    const uint64_t expire = jiffies + msecs_to_jiffies(ms, hz) + 1;
    return sim::Picos(expire * tick);
}

sim::Task<> msleep(hw::Cpu& self, Smp& smp, uint64_t ms, uint32_t hz) {
    static const uint32_t label = hw::profile_label("msleep");
    auto scope = self.function(label, hw::Activity::kernel);
    const sim::Picos expiry = msleep_expiry(self.now(), ms, hz);
    self.set_irq_handler(
        kLocalTimerVector, "local_timer_interrupt",
        [](hw::Cpu& cpu, const sim::Interrupt&) -> sim::Task<> { co_await cpu.compute_cycles(kTimerInterrupt); });
    self.engine().schedule_at(expiry, &fire_local_timer, &self, 0, kTimerTagBase + self.id(), sim::Priority::Urgent);
    // schedule(): switch to the idle task.
    co_await self.compute(self.costs().context_switch);
    while (self.now() < expiry) {
        // do_idle(), as in Kernel::cpu_main: anything but the timer is served and idles again.
        const hw::IdleState* st = self.idle_state();
        const bool poll = st != nullptr && st->monitors_flags();
        if (poll) co_await smp.set_polling(self, true);
        co_await self.idle();
        if (poll) co_await smp.set_polling(self, false);
        co_await self.compute_cycles(costs::do_idle_exit);
        co_await smp.flush_smp_call_function_queue(self);
    }
    // The woken task is switched back in.
    co_await self.compute(self.costs().context_switch);
}

}  // namespace ipisim::kernel
