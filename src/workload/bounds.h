// Sanity bounds of workload parameters (Schema::at_most): far above what any seed experiment asks
// for (1000 rounds, 250 groups, seconds of simulated time), far below what a typo of a few zeros
// turns into (2^40 rounds, 10^6 s), which would run for days instead of being reported.
#pragma once

namespace ipisim::workload {

inline constexpr double kMaxCount = 1'000'000;
inline constexpr double kMaxSimulatedPicos = 3600e12;  // 1 h of simulated time, in ps

}  // namespace ipisim::workload
