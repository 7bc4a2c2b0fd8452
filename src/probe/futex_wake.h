// Futex wake-up latency by how long the target CPU was idle: a thread blocks in FUTEX_WAIT on
// one CPU (which then idles), a thread on another CPU spins for the idle time, stamps the clock
// and calls FUTEX_WAKE; the sleeper stamps the clock when it runs again. The difference is the
// wake path: futex_wake, the reschedule IPI (or none if the idle CPU polls), the exit from the
// idle state (in a VM: the vCPU's HLT exit and its rescheduling by the host), the switch to the
// thread and the return to user space. Deeper idle states after longer idle show as a step.
#pragma once

#include <cstdint>
#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

struct WakeByIdle {
    uint64_t idle_ns = 0;
    std::vector<double> wake_ns;  // one sample per wake-up
};

// One entry per idle time; `wakes` wake-ups each (plus the effort's warm-up wake-ups).
std::vector<WakeByIdle> futex_wake_by_idle(int waker_cpu, int sleeper_cpu, const std::vector<uint64_t>& idle_ns,
                                           int wakes, const Effort& effort);

}  // namespace ipisim::probe
