// The cpuidle governor of the idle loop (drivers/cpuidle/governors/menu.c, reduced). Off by
// default: each CPU keeps the idle state set with Cpu::set_idle_state (the deepest unless a
// workload picks another), as without a scheduler.
//
// When enabled (the kernel's default: menu), before each idle entry:
//   predicted = the CPU's last idle interval, less the entered state's declared exit latency
//           (menu_update(): "we are interested in when the wakeup begun": the measured time
//           minus exit_latency, or half of it when it was under twice the exit latency);
//           unknown (first entry) or ended by the tick: long
//   state = the deepest whose target_residency <= predicted; never busy polling when a
//           physical state would be too deep (menu: "use a physical idle state, not busy
//           polling, unless a timer is going to trigger soon enough"; timers are not
//           predicted here [A], so POLL is never chosen while a physical state exists)
//   the tick stays on when the chosen state is not the deepest: if the CPU is still idle one
//   tick later, the timer interrupt wakes it and the next choice predicts a long interval.
// The governor plans with the declared bounds, never with a state's wake_latency: menu_select()
// (drivers/cpuidle/governors/menu.c) compares target_residency_ns to the prediction and
// exit_latency_ns only to the PM QoS latency limit (`s->exit_latency_ns > latency_req`); no
// PM QoS request is modeled, so that limit never binds here.
// [A] menu's 8-interval typical-interval filter and correction factors are reduced to "the
// last interval"; a steady pattern (the seed 001 case) gives the same choice.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/cpu/cpu.h"
#include "sim/time.h"

namespace ipisim::kernel {

class Cpuidle {
public:
    // TICK_NSEC at the kernel's HZ ([kernel] hz, default 250: 4 ms).
    Cpuidle(uint32_t nr_cpus, sim::Picos tick) : cpus_(nr_cpus), tick_(tick) {}

    void set_enabled(bool on) { enabled_ = on; }
    [[nodiscard]] bool enabled() const { return enabled_; }

    void select(hw::Cpu& cpu);
    void reflect(hw::Cpu& cpu);
    // The state index select() would choose after an idle interval `last` (nullopt: long).
    [[nodiscard]] static size_t choose(const hw::MachineSpec& spec, bool long_next, sim::Picos last);
    // menu_update()'s idle interval from a residency `measured` in a state declaring
    // `exit_latency`: measured - exit_latency, or measured / 2 when under 2 * exit_latency.
    [[nodiscard]] static sim::Picos deduct_exit_latency(sim::Picos measured, sim::Picos exit_latency);

    // Idle entries per state index, all CPUs.
    [[nodiscard]] const std::vector<uint64_t>& entries() const { return entries_; }

private:
    struct PerCpu {
        hw::Cpu* cpu = nullptr;
        uint32_t generation = 0;  // bumped at every reflect: stale tick events do nothing
        sim::Picos entered;
        sim::Picos last;
        bool long_next = true;  // no history yet
        bool tick_fired = false;
    };
    static void on_tick(void* obj, uint32_t generation);

    std::vector<PerCpu> cpus_;
    std::vector<uint64_t> entries_;
    sim::Picos tick_;
    bool enabled_ = false;
};

}  // namespace ipisim::kernel
