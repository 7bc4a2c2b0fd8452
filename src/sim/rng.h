// Our own random numbers: xoshiro256** seeded through SplitMix64, with our own distributions,
// so results are bit-identical across standard libraries. One stream per component, derived
// from (root seed, component path): adding a component does not perturb the others.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/inline.h"

namespace ipisim::sim {

uint64_t splitmix64(uint64_t& state);
// FNV-1a of a component path ("cpu.17.idle").
uint64_t hash_path(std::string_view path);

class Rng {
public:
    explicit Rng(uint64_t seed = 1);
    // The stream of the component at `path` under root seed `seed`.
    static Rng stream(uint64_t seed, std::string_view path);

    IPISIM_INLINE uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform integer in [lo, hi], inclusive (Lemire's method, unbiased). Inline: a draw is a
    // few instructions, and the rejection (rare) is out of line.
    IPISIM_INLINE uint64_t uniform(uint64_t lo, uint64_t hi) {
        const uint64_t range = hi - lo;
        if (range == UINT64_MAX) return next();
        const uint64_t n = range + 1;
        unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
        if (static_cast<uint64_t>(m) < n) m = reject(m, n);
        return lo + static_cast<uint64_t>(m >> 64);
    }
    // Uniform double in [0, 1) with 53 random bits.
    double uniform01();
    bool bernoulli(double p);
    // Exponential with the given mean (> 0).
    double exponential(double mean);
    // Normal (Box-Muller, one value per call).
    double normal(double mean, double stddev);

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    unsigned __int128 reject(unsigned __int128 m, uint64_t n);
    uint64_t s_[4];
};

}  // namespace ipisim::sim
