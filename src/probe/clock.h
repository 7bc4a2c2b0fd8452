// Wall-clock time for native measurements (never used by the model): CLOCK_MONOTONIC, which
// Linux keeps consistent across CPUs, so a timestamp taken on one CPU can be compared with one
// taken on another (the futex wake-up latency relies on it).
#pragma once

#include <time.h>

#include <cstdint>

namespace ipisim::probe {

inline uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Spins (without sleeping) until now_ns() >= deadline.
inline void spin_until_ns(uint64_t deadline) {
    while (now_ns() < deadline) {
    }
}

}  // namespace ipisim::probe
