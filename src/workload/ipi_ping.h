// The IPI-ping model: N simulated CPUs, each repeatedly computing for a random 1-1000 ns and
// then waking a random other CPU's waiting handler after a fixed delivery latency. It has no
// hardware model behind it: it exercises the engine (timed queue, ready ring, signals) and is
// both the engine benchmark and the demo experiment.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace ipisim::workload {

struct IpiPingParams {
    uint32_t cpus = 2;
    sim::Picos duration;   // simulated time to run
    sim::Picos delay_min;  // compute between sends, uniform in [min, max]
    sim::Picos delay_max;
    sim::Picos wake_latency;  // send -> handler wake-up
};

struct IpiPingResult {
    uint64_t sends = 0;
    uint64_t wakeups = 0;  // handler wake-ups (several sends to a waiting handler coalesce)
    uint64_t events = 0;
    uint64_t fingerprint = 0;
    sim::Picos simulated;
};

IpiPingResult run_ipi_ping(const IpiPingParams& params, uint64_t seed);

}  // namespace ipisim::workload
