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

// What spin_until_deadline() found: the last value loaded, and whether pred held on it (false:
// the deadline passed first).
struct BoundedSpin {
    uint64_t value = 0;
    bool satisfied = false;
};

// spin_until() that gives up at `deadline` (a time-bounded cpu_relax loop, e.g. the rwsem
// writer's spin on a reader-owned lock until rwsem_rspin_threshold()). The check of the clock
// is exact here; the kernel's loops read it every few iterations.
template <class Pred>
sim::Task<BoundedSpin> spin_until_deadline(Cpu& cpu, Memory& mem, SimVar& v, Pred pred, sim::Picos deadline) {
    const uint32_t label = cpu.profile().label();
    const Activity saved = cpu.profile().activity();
    const bool in_irq = saved == Activity::irq;
    if (!in_irq) cpu.set_activity(label, Activity::spin);
    IPISIM_CHECK_HOOK(wait_begin(cpu.id(), v));
    BoundedSpin out;
    for (;;) {
        out.value = co_await mem.load(cpu.id(), v);
        out.satisfied = pred(out.value);
        if (out.satisfied || cpu.now() >= deadline) break;
        const sim::Wake w = co_await mem.wait_for_write_for(v, deadline - cpu.now());
        if (w.interrupted()) {
            co_await cpu.take_irq(w.irq);
            if (!in_irq) cpu.set_activity(label, Activity::spin);
        }
    }
    IPISIM_CHECK_HOOK(wait_end(cpu.id()));
    if (!in_irq) cpu.set_activity(label, saved);
    co_return out;
}

}  // namespace ipisim::hw
