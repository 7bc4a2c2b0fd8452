#include "sim/time.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ipisim::sim {

std::string to_string(Picos t) {
    const uint64_t ps = t.count();
    if (ps == 0) return "0 ns";
    if (ps % 1'000'000'000'000ULL == 0) return fmt::format("{} s", ps / 1'000'000'000'000ULL);
    if (ps >= 1'000'000'000ULL) return fmt::format("{:.6g} ms", t.ms());
    if (ps >= 1'000'000ULL) return fmt::format("{:.6g} us", t.us());
    if (ps >= 1'000ULL) return fmt::format("{:.6g} ns", t.ns());
    return fmt::format("{} ps", ps);
}

void Picos::underflow(Picos a, Picos b) {
    throw std::logic_error(
        fmt::format("simulated time went negative: {} ps - {} ps (a span computed backwards)", a.count(), b.count()));
}

}  // namespace ipisim::sim
