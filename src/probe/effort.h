// How long the probe measures: warm-up, repeats and operations per repeat, full or --quick.
#pragma once

#include <cstdint>

namespace ipisim::probe {

struct Effort {
    int repeats = 15;        // samples per figure (the median and spread are over these)
    int warmup_repeats = 2;  // samples taken first and discarded (caches, frequency, page tables)
    double scale = 1.0;      // multiplies every operation count (quick: fewer per sample)
    int wakes = 40;          // futex wake-ups per idle time
    [[nodiscard]] uint64_t ops(uint64_t full) const {
        const auto n = static_cast<uint64_t>(static_cast<double>(full) * scale);
        return n > 0 ? n : 1;
    }
};

inline Effort full_effort() {
    return Effort{};
}
inline Effort quick_effort() {
    return Effort{7, 1, 0.1, 10};
}

}  // namespace ipisim::probe
