// The cpuidle governor of the idle loop: menu (drivers/cpuidle/governors/menu.c, the arithmetic
// in kernel/sched/menu.h). Off by default: each CPU keeps the idle state set with
// Cpu::set_idle_state (the deepest unless a workload picks another), as without a scheduler.
//
// When enabled (the kernel's default governor), before each idle entry menu_select() predicts
// the idle duration from the CPU's last 8 intervals (get_typical_interval) and from the time to
// its closest timer scaled by a learnt correction factor, picks the deepest state whose
// target_residency fits, and decides whether the tick stops; after the wake-up menu_update()
// records the interval. The governor plans with the declared bounds, never with a state's
// wake_latency.
//
// The model's timers and tick:
//   next timer   the CPU's closest pending schedule_timeout()/msleep() expiry (the Sched's
//                timers), but at most kTimerHorizon: a real CPU always has some timer pending
//                (timer wheel, hrtimers, watchdogs), which the model does not have [A: 1 s].
//                It matters: when the intervals give no prediction (fewer than half of them
//                regular, or all under 1 us, which count as 0 us), menu falls back on the
//                next timer scaled by the bucket's correction factor, which learns the ratio
//                of the measured intervals to it; with no timer at all that fallback would
//                always pick the deepest state
//   tick         periodic at TICK_NSEC ([kernel] hz), aligned on every CPU (sched_skew_tick=0,
//                the default); a tick kept running wakes the idle CPU at the next multiple of
//                TICK_NSEC, the governor runs again and menu_update() counts that interval as
//                long (45 ms) when no timer was due within a tick. Each idle exit restarts the
//                tick (tick_nohz_tick_stopped() is false at every selection) [A]. Busy CPUs'
//                ticks are not modelled.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/cpu/cpu.h"
#include "kernel/sched/menu.h"
#include "kernel/time/tick.h"
#include "sim/time.h"

namespace ipisim::kernel {

class Cpuidle {
public:
    // The model's stand-in for the housekeeping timers it does not have (see above).
    static constexpr sim::Picos kTimerHorizon = sim::Picos(100'000'000'000ULL);
    // `tick`: every CPU's tick (the kernel's; TICK_NSEC at [kernel] hz, default 250: 4 ms,
    // skewed with [kernel] skew_tick); `two_sided`: the 6.15+ outlier rule of
    // get_typical_interval (menu.h).
    Cpuidle(uint32_t nr_cpus, const TickSched& tick, bool two_sided)
        : cpus_(nr_cpus), tick_(tick), two_sided_(two_sided) {}

    void set_enabled(bool on) { enabled_ = on; }
    [[nodiscard]] bool enabled() const { return enabled_; }

    // Before an idle entry of `cpu` whose closest timer is `next_timer` away (MENU_NO_TIMER: none).
    void select(hw::Cpu& cpu, sim::Picos next_timer);
    // After its idle exit.
    void reflect(hw::Cpu& cpu);

    // Idle entries per state index, all CPUs.
    [[nodiscard]] const std::vector<uint64_t>& entries() const { return entries_; }
    // The menu_device of `cpu`.
    [[nodiscard]] const MenuDevice& device(hw::CpuId cpu) const { return cpus_.at(cpu).dev; }

private:
    struct PerCpu {
        hw::Cpu* cpu = nullptr;
        uint32_t generation = 0;  // bumped at every reflect: stale tick events do nothing
        sim::Picos entered;
        bool tick_fired = false;
        MenuDevice dev;
    };
    static void on_tick(void* obj, uint32_t generation);

    std::vector<PerCpu> cpus_;
    std::vector<uint64_t> entries_;
    const TickSched& tick_;
    bool two_sided_;
    bool enabled_ = false;
};

}  // namespace ipisim::kernel
