// What wakes a waiting process, and the interrupts that can detach it from its wait.
#pragma once

#include <cstdint>

namespace ipisim::sim {

// An interrupt delivered to a process. `vector` is the caller's (e.g. an x86 IDT vector or a
// GIC INTID); `data` is free for the sender (source CPU, payload index, ...).
struct Interrupt {
    uint32_t vector = 0;
    uint64_t data = 0;
};

enum class WakeReason : uint8_t {
    Timer,        // the delay elapsed (or a timed wait timed out)
    Notified,     // the signal waited on was notified
    Interrupted,  // an interrupt detached the process from its wait
};

struct Wake {
    WakeReason reason = WakeReason::Timer;
    Interrupt irq{};
    [[nodiscard]] bool interrupted() const { return reason == WakeReason::Interrupted; }
    [[nodiscard]] bool notified() const { return reason == WakeReason::Notified; }
    [[nodiscard]] bool timed_out() const { return reason == WakeReason::Timer; }
};

}  // namespace ipisim::sim
