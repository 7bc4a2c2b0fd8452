// The host fit of `ipisim probe` (issue 11): after host.toml is written, the assumed costs the
// probe's own microbenchmarks determine are fitted together with `ipisim calibrate`
// (experiment/calibrate.h), each to the microbenchmark that isolates it, modelled on host.toml
// itself:
//   - the interrupt delivery latency of the distance class between the probe's caller and
//     target CPUs (intc.fabric.CLASS), to the membarrier round trip with a spinning target (the
//     ipi_roundtrip workload's membarrier mode);
//   - x86: the fault path's unitemized cost (cpu.handle_mm_fault), to the one-thread write
//     fault + MADV_DONTNEED loop (1 thread of tlb_flush2: local flushes only, no IPI).
// Only the probe's microbenchmarks are targets, never the `validate host` multi-task cells. The
// other assumed costs stay A: a round trip cannot separate the delivery from the IRQ entry, exit
// and EOI (their split stays the cited one).
#pragma once

#include <filesystem>
#include <string>

#include "probe/results.h"

namespace ipisim::cli {

// Fits and rewrites `host` (the probe's host.toml, already written) when the probe measured the
// spinning membarrier round trip with an IPI per call; writes the experiment and targets it used
// to DIR/calibrate/. Returns the summary's paragraph: what was fitted and how, or why nothing was.
std::string fit_host_machine(const probe::ProbeResults& r, const std::filesystem::path& host,
                             const std::string& experiments_dir);

}  // namespace ipisim::cli
