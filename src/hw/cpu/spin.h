// Spinning on a shared variable as a CPU does it (smp_cond_load_acquire, cpu_relax loops):
// without polling events, charged as `spin` in the CPU profile, and interruptible when IRQs are
// on — an interrupt arriving while the spinner sleeps on the line is handled at once, then the
// spin resumes (its first load hits in L1 unless the line was written meanwhile).
#pragma once

#include "hw/check_hooks.h"
#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"

namespace ipisim::hw {

// One coroutine level: the loads and the sleeps on the line are plain awaitables.
template <class Pred>
sim::Task<uint64_t> spin_until(Cpu& cpu, Memory& mem, SimVar& v, Pred pred) {
    const uint32_t label = cpu.profile().label();
    const Activity saved = cpu.profile().activity();
    // Inside IRQ context the time stays IRQ time; elsewhere it is spinning.
    const bool in_irq = saved == Activity::irq;
    if (!in_irq) cpu.set_activity(label, Activity::spin);
    IPISIM_CHECK_HOOK(wait_begin(cpu.id(), v));
    for (;;) {
        const uint64_t value = co_await mem.load(cpu.id(), v);
        if (pred(value)) {
            IPISIM_CHECK_HOOK(wait_end(cpu.id()));
            if (!in_irq) cpu.set_activity(label, saved);
            co_return value;
        }
        const sim::Wake w = co_await mem.wait_for_write(v);
        if (w.interrupted()) {
            co_await cpu.take_irq(w.irq);
            if (!in_irq) cpu.set_activity(label, Activity::spin);
        }
    }
}

}  // namespace ipisim::hw
