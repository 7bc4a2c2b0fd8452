#include "probe/cacheline.h"

#include <atomic>

#include "probe/clock.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

namespace {

// The line the two threads pass; alone on its 128-byte pair of lines (adjacent-line prefetch).
struct alignas(128) Line {
    std::atomic<uint64_t> value{0};
};

// Waits until the line holds `expect`, then swaps in `next` (the CAS fails while the other side
// still has the turn).
inline void take_turn(std::atomic<uint64_t>& v, uint64_t expect, uint64_t next) {
    uint64_t e = expect;
    while (!v.compare_exchange_weak(e, next, std::memory_order_acq_rel, std::memory_order_relaxed)) e = expect;
}

}  // namespace

std::vector<double> cas_ping_pong_ns(int cpu_a, int cpu_b, uint64_t round_trips, const Effort& effort) {
    const int samples = effort.warmup_repeats + effort.repeats;
    const uint64_t total = round_trips * static_cast<uint64_t>(samples);
    Line line;
    std::vector<double> out;
    run_pinned({cpu_a, cpu_b}, [&](size_t side) {
        if (side == 1) {
            // Round trip i: ping turns 2i into 2i+1, pong turns 2i+1 into 2i+2.
            for (uint64_t i = 0; i < total; ++i) take_turn(line.value, 2 * i + 1, 2 * i + 2);
            return;
        }
        uint64_t i = 0;
        for (int s = 0; s < samples; ++s) {
            const uint64_t t0 = now_ns();
            for (uint64_t k = 0; k < round_trips; ++k, ++i) take_turn(line.value, 2 * i, 2 * i + 1);
            // The sample ends when the last pong has answered.
            while (line.value.load(std::memory_order_acquire) != 2 * i) {
            }
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats) {
                out.push_back(static_cast<double>(t1 - t0) / (2.0 * static_cast<double>(round_trips)));
            }
        }
    });
    return out;
}

}  // namespace ipisim::probe
