#include "kernel/time/tick.h"

#include <stdexcept>

namespace ipisim::kernel {

TickSched::TickSched(uint32_t hz, bool skew_tick, uint32_t nr_possible) : period_(tick_nsec(hz)) {
    if (nr_possible == 0) throw std::invalid_argument("TickSched: no CPUs");
    if (skew_tick) {
        // u64 offset = TICK_NSEC >> 1; do_div(offset, num_possible_cpus()): whole nanoseconds.
        const uint64_t tick_ns = period_.count() / 1000;
        offset_step_ = sim::Picos((tick_ns >> 1) / nr_possible * 1000);
    }
}

sim::Picos TickSched::offset(hw::CpuId cpu) const {
    return sim::Picos(offset_step_.count() * cpu);
}

sim::Picos TickSched::next_tick(hw::CpuId cpu, sim::Picos now) const {
    const uint64_t off = offset(cpu).count();
    const uint64_t t = now.count();
    if (t < off) return sim::Picos(off);
    return sim::Picos(((t - off) / period_.count() + 1) * period_.count() + off);
}

}  // namespace ipisim::kernel
