// msleep() (kernel/time/timer.c) on the modeled machine, for code that sleeps in task context:
// schedule_timeout_uninterruptible(msecs_to_jiffies(ms) + 1). The task is switched out; its CPU,
// with nothing else to run, enters do_idle() in its idle state (publishing TIF_POLLING_NRFLAG
// in a polling state, and serving cross-calls like any idle CPU); the timer wheel's level-0
// timer expires on the tick where jiffies reaches the expiry, its local timer interrupt wakes
// the CPU (paying the idle state's exit latency), and the task is switched back in.
//
// The timer interrupt is raised on LOCAL_TIMER_VECTOR (0xec) on the sleeping CPU only; its
// handler is installed there when the CPU sleeps. Model scope: no periodic tick. kernel/sched
// (Sched::msleep) models the same with its own timer handler: do not combine both on one
// Kernel, this one replaces the scheduler's LOCAL_TIMER handler on the sleeping CPU.
#pragma once

#include <cstdint>

#include "hw/cpu/cpu.h"
#include "kernel/smp/smp.h"
#include "sim/task.h"

namespace ipisim::kernel {

// include/linux/jiffies.h: rounds up.
[[nodiscard]] constexpr uint64_t msecs_to_jiffies(uint64_t ms, uint32_t hz) {
    return (ms * hz + 999) / 1000;
}

// When a msleep(ms) begun at `now` ends (the expiry tick), before the wake-up costs.
[[nodiscard]] sim::Picos msleep_expiry(sim::Picos now, uint64_t ms, uint32_t hz);

sim::Task<> msleep(hw::Cpu& self, Smp& smp, uint64_t ms, uint32_t hz);

}  // namespace ipisim::kernel
