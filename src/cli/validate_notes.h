// The warnings `ipisim validate host` prints under its table, for cells whose measurement is not
// what the model computes: a threads cell whose tasks were rarely running at the same time (few
// of the shootdown IPIs the model sends were received: the cell did not measure the shootdown),
// tasks that had little of their CPUs ("loops/s owning CPUs" is then an extrapolation), and a
// scaling table with no ratio (one task count), and a multi-task cell measured while the host
// placed the tasks' CPUs differently than when they were probed (probe/placement.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/placement.h"

namespace ipisim::cli {

struct CellFigures {
    std::string mode;  // "threads" or "processes"
    uint32_t tasks = 1;
    std::optional<double> cpu_share;               // median tasks' CPU time / wall time
    std::optional<double> measured_ipis_per_loop;  // /proc/interrupts "TLB" per loop
    double model_ipis_per_loop = 0;
    // The line latency between the tasks' first two CPUs: probed (host.toml), and checked just
    // before and after the cell's measurement (multi-task cells).
    std::optional<probe::PlacementCheck> placement;
};

// One line per problem, in cell order; empty when every cell measured what the model computes.
std::vector<std::string> validate_notes(const std::vector<CellFigures>& cells);

}  // namespace ipisim::cli
