// The core clock, measured: a chain of dependent 64-bit multiplies (IMUL r64, r64) retires one
// multiply every 3 cycles on every x86 core since Nehalem and Zen (Agner Fog's instruction
// tables; uops.info), so multiplies per nanosecond times 3 is the clock the thread actually ran
// at (in a VM too, where "cpu MHz" in /proc/cpuinfo is what the hypervisor reports).
//
// Why not a chain of adds (this probe's first method): from Golden Cove on, Intel's renamer
// executes `add reg, imm` chains without waiting for each add (immediate folding), and a
// Sapphire Rapids guest read as a 20 GHz core; a multiply has no such shortcut.
#pragma once

#include <vector>

#include "probe/effort.h"

namespace ipisim::probe {

// MHz samples on `cpu`; empty when the architecture has no such chain here (not x86).
std::vector<double> core_clock_mhz(int cpu, const Effort& effort);

// Whether a measured clock is one a core can run at (0.3 to 7 GHz); outside, the probe reports
// the figure as a failed measurement and does not use it.
[[nodiscard]] bool plausible_core_clock_mhz(double mhz);

}  // namespace ipisim::probe
