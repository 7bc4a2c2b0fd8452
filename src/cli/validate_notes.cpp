#include "cli/validate_notes.h"

#include <fmt/format.h>

#include "probe/placement.h"

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
        if (c.probed_line_ns && c.line_before_ns && c.line_after_ns &&
            !probe::same_placement(*c.probed_line_ns, *c.line_before_ns, *c.line_after_ns)) {
            notes.push_back(fmt::format(
                "{}: a cache line between {} took {:.1f} ns before and {:.1f} ns after the measurement ({} "
                "attempt{}), {:.1f} ns when probed: the host placed the CPUs differently (a VM's vCPUs moved), so this "
                "cell measured other hardware than host.toml describes",
                cell, c.pair, *c.line_before_ns, *c.line_after_ns, c.attempts, c.attempts == 1 ? "" : "s",
                *c.probed_line_ns));
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
