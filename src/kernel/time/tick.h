// The periodic scheduler tick of every CPU (kernel/time/tick-sched.c, tick_setup_sched_timer).
//
// Each CPU's sched_timer starts at a jiffy boundary (tick_init_jiffy_update) and fires every
// TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ (include/linux/jiffies.h). With the boot option
// skew_tick=1 (early_param "skew_tick", sched_skew_tick; in mainline since 3.5, off by default)
// the CPU's first expiry is moved by
//     offset(cpu) = (TICK_NSEC >> 1) / num_possible_cpus() * cpu    (do_div: integer division)
// "to avert jiffies_lock contention": the CPUs' ticks are spread over the first half of each
// jiffy instead of firing together. So CPU c ticks at k * TICK_NSEC + offset(c).
//
// Users in the model: the cpuidle governor (an idle CPU whose tick keeps running wakes at its
// next tick) and LATR (a target applies its queued flushes at its next tick). jiffies (mm's rate
// limits) advance at the jiffy boundaries either way: the do_timer CPU is CPU 0, whose offset is 0.
#pragma once

#include <cstdint>

#include "hw/topology.h"
#include "sim/time.h"

namespace ipisim::kernel {

// TICK_NSEC at CONFIG_HZ = hz, in picoseconds.
[[nodiscard]] constexpr sim::Picos tick_nsec(uint32_t hz) {
    constexpr uint64_t kNsecPerSec = 1'000'000'000ULL;
    return sim::Picos((kNsecPerSec + hz / 2) / hz * 1000);
}

class TickSched {
public:
    // `nr_possible`: num_possible_cpus() (every CPU of the machine in the model).
    TickSched(uint32_t hz, bool skew_tick, uint32_t nr_possible);

    [[nodiscard]] sim::Picos period() const { return period_; }
    [[nodiscard]] bool skewed() const { return offset_step_ != sim::Picos::zero(); }
    // The CPU's tick offset from the jiffy boundary (zero without skew_tick).
    [[nodiscard]] sim::Picos offset(hw::CpuId cpu) const;
    // The CPU's first tick strictly after `now`.
    [[nodiscard]] sim::Picos next_tick(hw::CpuId cpu, sim::Picos now) const;

private:
    sim::Picos period_;
    sim::Picos offset_step_;  // (TICK_NSEC >> 1) / num_possible_cpus(), in whole ns
};

}  // namespace ipisim::kernel
