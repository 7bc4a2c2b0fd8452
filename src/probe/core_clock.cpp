#include "probe/core_clock.h"

#include <cstdint>

#include "probe/clock.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

std::vector<double> core_clock_mhz(int cpu, const Effort& effort) {
    std::vector<double> out;
#if defined(__x86_64__)
    constexpr uint64_t kMultipliesPerIteration = 100;
    constexpr uint64_t kCyclesPerMultiply = 3;       // IMUL r64, r64 latency
    const uint64_t iterations = effort.ops(70'000);  // 21 M cycles: ~8 ms at 2.5 GHz
    run_pinned({cpu}, [&](size_t) {
        for (int s = 0; s < effort.warmup_repeats + effort.repeats; ++s) {
            uint64_t x = 1;
            const uint64_t odd = 3;  // keeps x odd: never 0, never a power of two
            const uint64_t t0 = now_ns();
            for (uint64_t i = 0; i < iterations; ++i) {
                // 100 multiplies, each waiting for the previous one; the loop counter runs beside them.
                asm volatile(".rept 100\n\timulq %1, %0\n\t.endr" : "+r"(x) : "r"(odd));
            }
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats && t1 > t0) {
                out.push_back(static_cast<double>(iterations * kMultipliesPerIteration * kCyclesPerMultiply) * 1000.0 /
                              static_cast<double>(t1 - t0));
            }
        }
    });
#else
    (void)cpu;
    (void)effort;
#endif
    return out;
}

bool plausible_core_clock_mhz(double mhz) {
    return mhz >= 300 && mhz <= 7000;
}

}  // namespace ipisim::probe
