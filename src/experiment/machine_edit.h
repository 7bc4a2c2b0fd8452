// Machines with some costs set to other values inside their ranges: what `--uncertainty`,
// `ipisim sensitivity` and `ipisim calibrate` run. A cost is named by its dotted key as the
// spec records it (hw::MachineSpec::costs: "coherence.same_l3", "idle[1].exit_latency"); the
// new value is in the cost's base unit (ps for durations, kHz for frequencies) and keeps the
// file's mark, range and source, so the machine reads as the file with other numbers in it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/schema.h"
#include "config/table.h"

namespace ipisim::experiment {

// One cost and the value it takes.
struct CostSetting {
    const config::CostValue* cost = nullptr;
    double value = 0;  // base unit; rounded to the cost's type (whole ps, kHz, integers)
};

// The value a cost of this type holds once written: durations and frequencies are whole base
// units, integers are whole; numbers are kept.
double representable(config::ParamType type, double value);

// A deep copy of `machine` (the tree, not a shared view) with each setting's value in place.
// A key the document does not hold is a std::logic_error: the spec and its document disagree.
config::Document with_costs(const config::Document& machine, const std::vector<CostSetting>& settings);

// with_costs, and each setting's cost marked fitted: mark "F", `target`, its source replaced
// by sources[i] (the range is kept) and its fit interval by fits[i] (none: no `fit` key, an
// earlier one removed). Each cost must be a marked table in the document (only marked A or F
// costs are fitted); anything else is a std::logic_error.
config::Document with_fitted(const config::Document& machine, const std::vector<CostSetting>& settings,
                             const std::string& target, const std::vector<std::string>& sources,
                             const std::vector<std::optional<config::Range>>& fits = {});

// A deep copy of `machine` with only the fit intervals of `costs` (each marked F) replaced by
// fits[i] (none: the `fit` key removed); values, marks, sources and targets stay.
config::Document with_fit_intervals(const config::Document& machine, const std::vector<const config::CostValue*>& costs,
                                    const std::vector<std::optional<config::Range>>& fits);

}  // namespace ipisim::experiment
