// raw_spinlock_t on a simulated cache line: the queued-spinlock fast path (one cmpxchg of the
// lock word) and, while it is held, spinning on the line until the holder's release store.
// Callers hold interrupts off as the kernel's spin_lock_irq* variants do.
#pragma once

#include "hw/coherence/memory.h"
#include "hw/cpu/cpu.h"

namespace ipisim::kernel {

inline sim::Task<> raw_spin_lock(hw::Cpu& cpu, hw::Memory& mem, hw::SimVar& lock) {
    for (;;) {
        const uint64_t old = co_await mem.cmpxchg(cpu.id(), lock, 0, 1);
        if (old == 0) co_return;
        co_await mem.wait_until(cpu.id(), lock, [](uint64_t v) { return v == 0; });
    }
}

inline sim::Task<> raw_spin_unlock(hw::Cpu& cpu, hw::Memory& mem, hw::SimVar& lock) {
    co_await mem.store(cpu.id(), lock, 0);
}

}  // namespace ipisim::kernel
