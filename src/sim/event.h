// A scheduled event: a value entry, no allocation. Ordered by (time, priority, sequence).
#pragma once

#include <cstdint>

#include "sim/inline.h"

namespace ipisim::sim {

// Same-time order of timed events. Interrupt delivery is URGENT so that it precedes ordinary
// wake-ups at the same instant; LATE is for observers (samplers, end-of-window bookkeeping).
enum class Priority : uint8_t { Urgent = 0, Normal = 1, Late = 2 };

using EventFn = void (*)(void* obj, uint32_t arg);

struct Event {
    uint64_t time;  // picoseconds
    uint64_t key;   // priority in the top 8 bits, insertion sequence below
    EventFn fn;
    void* obj;
    uint32_t arg;  // typically an epoch, for lazy cancellation
    uint32_t tag;  // deterministic identity of the target (process id, component id), hashed
                   // into the fingerprint; never a pointer
};

IPISIM_INLINE bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.key < b.key);
}

IPISIM_INLINE uint64_t make_key(Priority p, uint64_t seq) {
    return (static_cast<uint64_t>(p) << 56) | (seq & ((1ULL << 56) - 1));
}

}  // namespace ipisim::sim
