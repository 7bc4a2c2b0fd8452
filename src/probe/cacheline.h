// Cache-line transfer latency between two CPUs: two pinned threads pass ownership of one
// cache line back and forth with compare-and-swap (CAS ping-pong); the one-way latency is the
// round trip divided by two (the method of the core-to-core-latency tools cited in
// docs/calibration.md, so the figures are comparable with that table).
#pragma once

#include <cstdint>
#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

// One-way latency samples in ns: each is (time of `round_trips` round trips) / (2 x round_trips),
// after the effort's warm-up samples. Throws std::runtime_error if a CPU cannot be used.
std::vector<double> cas_ping_pong_ns(int cpu_a, int cpu_b, uint64_t round_trips, const Effort& effort);

}  // namespace ipisim::probe
