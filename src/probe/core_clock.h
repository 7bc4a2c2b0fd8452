// The core clock, measured: a chain of dependent 64-bit adds retires one add per cycle on every
// x86 core since the P6, so adds per nanosecond is the clock the thread actually ran at (in a
// VM too, where "cpu MHz" in /proc/cpuinfo is what the hypervisor reports).
#pragma once

#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

// MHz samples on `cpu`; empty when the architecture has no such chain here (not x86).
std::vector<double> core_clock_mhz(int cpu, const Effort& effort);

}  // namespace ipisim::probe
