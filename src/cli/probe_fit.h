// The host fit of `ipisim probe` (issue 11): after host.toml is written, the one assumed cost the
// probe's own microbenchmarks determine, the interrupt delivery latency of the distance class
// between the probe's caller and target CPUs (intc.fabric.CLASS, marked A), is fitted with
// `ipisim calibrate` (experiment/calibrate.h) to the measured membarrier round trip with a
// spinning target, modelled by the ipi_roundtrip workload's membarrier mode on host.toml itself.
// Only the probe's microbenchmarks are targets, never the `validate host` multi-task cells. The
// other assumed costs stay A: one round trip cannot separate the delivery from the IRQ entry,
// exit and EOI (their split stays the cited one).
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
