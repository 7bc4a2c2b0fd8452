// `ipisim sensitivity`: which uncertain costs move a prediction, and by how much
// (docs/uncertainty.md). One at a time: every ranged cost of the machine (uncertainty.h
// ranged_costs) is set to the low end of its range, then to the high end, the others staying
// nominal, and every point runs on each of these 2k machines (k ranged costs) with the
// experiment's seed. The effect of a cost on a metric is high - low (its swing over the range),
// also relative to the nominal prediction.
//
// Besides each point's metrics, the gains a mechanism switch is about: for every swept [kernel]
// key whose values are names or booleans (kernel.tlb_flush, kernel.gic_barrier), the ratio of
// a metric at the key's first value to the metric at each other value, the other parameters
// equal ("gain kernel.gic_barrier=wmb/dsb_ishst"), with its own swing per cost.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/run_journal.h"
#include "experiment/runner.h"
#include "experiment/uncertainty.h"

namespace ipisim::experiment {

struct SensitivityRuns {
    std::vector<RangedCost> costs;
    std::vector<nlohmann::ordered_json> nominal;           // metrics per point
    std::vector<std::vector<nlohmann::ordered_json>> low;  // [cost][point]
    std::vector<std::vector<nlohmann::ordered_json>> high;
    // Why the machine with the cost at that end was refused (uncertainty.h prepare_variant: the
    // range crosses a constraint of the model), "" if it ran; a refused end has no metrics.
    std::vector<std::string> low_refused;
    std::vector<std::string> high_refused;
};

// The machines of a screen: the nominal one, then each ranged cost at its low end and at its
// high end (a machine the model refuses is nullopt, with the reason). Run i of the screen is
// machine i / points at point i % points.
struct SensitivityPlan {
    std::vector<RangedCost> costs;
    std::vector<std::optional<PreparedExperiment>> machines;
    std::vector<std::string> low_refused;
    std::vector<std::string> high_refused;
    size_t points = 0;

    [[nodiscard]] size_t runs() const { return machines.size() * points; }
    [[nodiscard]] size_t runs_to_do() const;  // those of the machines that exist
};

SensitivityPlan plan_sensitivity(const PreparedExperiment& prepared);

// Runs the plan's machines on `jobs` threads (identical for any number). `progress(done, total,
// run)` after each run that ran (not those a journal kept), one call at a time; may be empty.
// With a journal, its kept runs are not run again and every other run is recorded in it when it
// finishes.
using SensitivityProgress = std::function<void(size_t done, size_t total, size_t run)>;
SensitivityRuns run_sensitivity(SensitivityPlan& plan, unsigned jobs, const SensitivityProgress& progress = {},
                                RunJournal* journal = nullptr);

// The run's machine and point for people: "nominal, point 3", "cpu.irq_entry low, point 0".
std::string sensitivity_run_text(const SensitivityPlan& plan, size_t run);

// plan_sensitivity, then run_sensitivity without a journal.
SensitivityRuns run_sensitivity(const PreparedExperiment& prepared, unsigned jobs,
                                const SensitivityProgress& progress = {});

// The metrics screened by default: those the seed's table shape shows ([report]) and those
// with published values; else every numeric metric of the first point.
std::vector<std::string> default_sensitivity_metrics(const PreparedExperiment& prepared,
                                                     const nlohmann::ordered_json& first_point_metrics);

// sensitivity.json: {"experiment", "machine", "seed", "config_hash", "swept", "method", "costs": [{"key", "mark", "lo",
// "hi", "nominal", "unit"}], "quantities": [{"name", "point" (or "points"), "params", "metric",
// "nominal", "effects": [{"key", "low", "high", "swing", "relative", ["low_refused"],
// ["high_refused"]}]}]} (a refused end: null, swing 0, and why), effects largest
// |swing| first (ties in the machine's order). Quantities are the metrics per point, then the
// gains.
nlohmann::ordered_json sensitivity_json(const PreparedExperiment& prepared, const SensitivityRuns& runs,
                                        const std::vector<std::string>& metrics);

// The readable tables of sensitivity.json are report/sensitivity_text.h.

}  // namespace ipisim::experiment
