// Test support: an interrupt raised on a CPU at a given simulated time (an engine event of the
// Urgent class, as a device or another CPU's IPI delivery would raise it).
#pragma once

#include <cstdint>

#include "hw/cpu/cpu.h"
#include "sim/engine.h"

namespace ipisim::test {

// Raises `vector` on `cpu` at time t.
inline void raise_at(sim::Engine& eng, sim::Picos t, hw::Cpu& cpu, uint32_t vector) {
    struct Ctx {
        hw::Cpu* cpu;
        uint32_t vector;
    };
    auto* ctx = new Ctx{&cpu, vector};
    eng.schedule_at(
        t,
        [](void* o, uint32_t) {
            auto* c = static_cast<Ctx*>(o);
            c->cpu->raise(sim::Interrupt{c->vector, 0});
            delete c;
        },
        ctx, 0, 7777, sim::Priority::Urgent);
}

}  // namespace ipisim::test
