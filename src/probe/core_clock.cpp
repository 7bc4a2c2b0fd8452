#include "probe/core_clock.h"

#include <cstdint>

#include "probe/clock.h"
#include "probe/pinned_threads.h"

namespace ipisim::probe {

std::vector<double> core_clock_mhz(int cpu, const Effort& effort) {
    std::vector<double> out;
#if defined(__x86_64__)
    constexpr uint64_t kAddsPerIteration = 100;
    const uint64_t iterations = effort.ops(200'000);  // 20 M cycles: ~8 ms at 2.5 GHz
    run_pinned({cpu}, [&](size_t) {
        for (int s = 0; s < effort.warmup_repeats + effort.repeats; ++s) {
            uint64_t x = 0;
            const uint64_t t0 = now_ns();
            for (uint64_t i = 0; i < iterations; ++i) {
                // 100 adds, each waiting for the previous one; the loop counter runs beside them.
                asm volatile(".rept 100\n\taddq $1, %0\n\t.endr" : "+r"(x));
            }
            const uint64_t t1 = now_ns();
            if (s >= effort.warmup_repeats && t1 > t0) {
                out.push_back(static_cast<double>(iterations * kAddsPerIteration) * 1000.0 /
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

}  // namespace ipisim::probe
