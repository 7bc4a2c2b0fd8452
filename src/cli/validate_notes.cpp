#include "cli/validate_notes.h"

#include <fmt/format.h>

namespace ipisim::cli {

namespace {

// Below these the cell is flagged: fewer than half the model's shootdown IPIs received, less
// than half of each CPU for the tasks.
constexpr double kMinIpiFraction = 0.5;
constexpr double kMinCpuShare = 0.5;

}  // namespace

std::vector<std::string> validate_notes(const std::vector<CellFigures>& cells) {
    std::vector<std::string> notes;
    bool base = false;
    bool other = false;
    for (const CellFigures& c : cells) {
        (c.tasks == 1 ? base : other) = true;
        const std::string cell = fmt::format("{} x{}", c.mode, c.tasks);
        if (c.measured_ipis_per_loop && c.model_ipis_per_loop > 0 &&
            *c.measured_ipis_per_loop < kMinIpiFraction * c.model_ipis_per_loop) {
            notes.push_back(fmt::format(
                "{}: {:.3f} shootdown IPIs per loop received where the model sends {:.3f}: the tasks were rarely "
                "running at the same time, so this cell did not measure the shootdown (run with real-time "
                "priority on an otherwise idle machine)",
                cell, *c.measured_ipis_per_loop, c.model_ipis_per_loop));
        }
        if (c.placement && !c.placement->matched()) {
            const probe::PlacementCheck& p = *c.placement;
            notes.push_back(fmt::format(
                "{}: a cache line between CPUs {} and {} took {:.1f} ns before and {:.1f} ns after the measurement "
                "({}), {:.1f} ns when probed: the host placed the CPUs differently (a VM's vCPUs moved), so "
                "this cell measured other hardware than host.toml describes",
                cell, p.cpu_a, p.cpu_b, p.before_ns, p.after_ns, probe::attempts_text(p.attempts), p.probed_ns));
        }
        if (c.cpu_share && *c.cpu_share < kMinCpuShare) {
            notes.push_back(fmt::format(
                "{}: the tasks had {:.3f} of their CPUs: \"loops/s owning CPUs\" extrapolates from that share", cell,
                *c.cpu_share));
        }
    }
    if (!(base && other)) notes.emplace_back("scaling: no ratio without task count 1 and another (--tasks 1,2)");
    return notes;
}

}  // namespace ipisim::cli
