// Our own random numbers: xoshiro256** seeded through SplitMix64, with our own distributions,
// so results are bit-identical across standard libraries. One stream per component, derived
// from (root seed, component path): adding a component does not perturb the others.
#pragma once

#include <cstdint>
#include <string_view>

namespace ipisim::sim {

uint64_t splitmix64(uint64_t& state);
// FNV-1a of a component path ("cpu.17.idle").
uint64_t hash_path(std::string_view path);

class Rng {
public:
    explicit Rng(uint64_t seed = 1);
    // The stream of the component at `path` under root seed `seed`.
    static Rng stream(uint64_t seed, std::string_view path);

    uint64_t next();
    // Uniform integer in [lo, hi], inclusive (Lemire's method, unbiased).
    uint64_t uniform(uint64_t lo, uint64_t hi);
    // Uniform double in [0, 1) with 53 random bits.
    double uniform01();
    bool bernoulli(double p);
    // Exponential with the given mean (> 0).
    double exponential(double mean);
    // Normal (Box-Muller, one value per call).
    double normal(double mean, double stddev);

private:
    uint64_t s_[4];
};

}  // namespace ipisim::sim
