#include "sim/rng.h"

#include <cmath>

namespace ipisim::sim {

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t hash_path(std::string_view path) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : path) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

Rng::Rng(uint64_t seed) {
    uint64_t st = seed;
    for (uint64_t& s : s_) s = splitmix64(st);
}

Rng Rng::stream(uint64_t seed, std::string_view path) {
    uint64_t st = seed ^ hash_path(path);
    return Rng(splitmix64(st));
}

unsigned __int128 Rng::reject(unsigned __int128 m, uint64_t n) {
    const uint64_t threshold = (0 - n) % n;
    while (static_cast<uint64_t>(m) < threshold) m = static_cast<unsigned __int128>(next()) * n;
    return m;
}

double Rng::uniform01() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

bool Rng::bernoulli(double p) {
    return uniform01() < p;
}

double Rng::exponential(double mean) {
    return -mean * std::log1p(-uniform01());
}

double Rng::normal(double mean, double stddev) {
    double u1 = uniform01();
    while (u1 <= 0.0) u1 = uniform01();
    const double u2 = uniform01();
    return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace ipisim::sim
