// `--uncertainty N`: how much a prediction moves when the machine's uncertain costs move within
// their ranges (docs/uncertainty.md).
//
// The sampled costs are every cost of the machine with a range (the plausible range of A and F
// values, the published spread of P and D values), except values given with --set (pinned).
// A Latin hypercube draws N machines: each cost's range is cut into N equal strata, every
// stratum is used exactly once, strata are paired across costs at random (sim::Rng stream
// "uncertainty" of the experiment seed), and the value is drawn uniformly within its stratum
// (log-uniformly where the range spans more than 10x). Each point then runs on each of the N
// machines with the experiment's own seed (common random numbers: only the costs differ), and
// each metric is reported as the median and the 5-95% interval of its N values (linear
// interpolation between order statistics). The nominal run stays the headline value.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/schema.h"
#include "experiment/machine_edit.h"
#include "experiment/run_journal.h"
#include "experiment/runner.h"

namespace ipisim::experiment {

// A cost sampled over its range.
struct RangedCost {
    const config::CostValue* cost = nullptr;
    double lo = 0;  // base unit
    double hi = 0;
    bool log_scale = false;  // hi / lo > 10 (and lo > 0): sampled log-uniformly
    bool fit = false;        // [lo, hi] is the cost's fit interval, not its plausible range
};

// The machine's ranged costs in the order the spec records them (the file's order). A fitted
// cost with a fit interval (config::Provenance::fit) is sampled over that interval: the values
// its fit leaves possible, not the whole range it was searched in.
std::vector<RangedCost> ranged_costs(const hw::MachineSpec& spec);

// The value of a cost at u in [0, 1]: lo + u (hi - lo), or lo (hi/lo)^u on a log scale; rounded
// as the cost's type holds it (machine_edit.h representable) and kept within [lo, hi].
double value_at(const RangedCost& c, double u);

// The position in [0, 1] of `value` in the cost's range: value_at's inverse (clamped).
double position_of(const RangedCost& c, double value);

// n points of a Latin hypercube over costs.size() dimensions, in [0, 1): result[s][k]. Batch b
// draws from its own stream of the seed ("uncertainty", then "uncertainty.1", ...).
std::vector<std::vector<double>> latin_hypercube(size_t costs, size_t n, uint64_t seed, size_t batch = 0);

// The q-quantile (0 <= q <= 1) of values, linear between order statistics (values unsorted).
double quantile(std::vector<double> values, double q);

// What the samples say about one point (runner.h PointSpread), for every metric that is a
// number in every sample.
PointSpread spread_of(const std::vector<nlohmann::ordered_json>& sample_metrics);

// The plan of one experiment: the ranged costs and one batch of N sampled machines' values.
struct UncertaintyPlan {
    std::vector<RangedCost> costs;
    std::vector<std::vector<double>> values;  // [sample][cost], base units
    nlohmann::ordered_json describe() const;  // results.json "uncertainty"
};
UncertaintyPlan plan_uncertainty(const PreparedExperiment& prepared, size_t samples, size_t batch = 0);

// How many batches of N machines run_uncertainty draws at most to find N that can exist.
inline constexpr size_t kUncertaintyBatches = 8;

// The experiment prepared on its machine with `settings` in place, or nullopt with the machine's
// objection in `refused` ("intc.fabric.router_service: 126 ns is longer than ...") when its own
// checks refuse the combination: such a machine cannot exist (the ranges overlap a constraint).
std::optional<PreparedExperiment> prepare_variant(const PreparedExperiment& nominal,
                                                  const std::vector<CostSetting>& settings, std::string& refused);

// Runs every point of every experiment on each of its plan's machines, all on one pool of `jobs`
// threads (parallel.h), and stores the spreads and the plan's description in each experiment
// (PreparedExperiment::spreads, ::uncertainty), so its nominal run reports them. Identical for
// any number of threads. An experiment without ranged costs (or without a machine) gets none.
// A sampled machine its own checks refuse (prepare_variant) cannot exist and is left out; further
// Latin hypercubes of N (batches 1, 2, ... up to `max_batches` in all) are drawn, in order, until
// N machines can exist, so the intervals are over N feasible machines (a uniform prior over the
// feasible region) unless the ranges leave almost none. The description counts the machines drawn
// ("drawn": sample numbers run over the batches, b * N + s) and used ("feasible") and says why
// the others were refused ("refused": [{"sample", "problem"}]); fewer than 2 feasible give no
// intervals. `progress(done, total)` is called one call at a time after each sample run; may be
// empty.
//
// With `open_journal`, experiment x's sample runs are kept in the journal it returns for them
// (run_journal.h; run s * points + k is the s-th machine used at point k, `runs` of them), which
// --resume reopens: the runs it kept are not run again. It may return null (no journal).
using SampleJournalOpener = std::function<std::unique_ptr<RunJournal>(size_t experiment, size_t runs)>;
void run_uncertainty(const std::vector<PreparedExperiment*>& experiments, size_t samples, unsigned jobs,
                     const std::function<void(size_t done, size_t total)>& progress = {},
                     size_t max_batches = kUncertaintyBatches, const SampleJournalOpener& open_journal = {});

}  // namespace ipisim::experiment
