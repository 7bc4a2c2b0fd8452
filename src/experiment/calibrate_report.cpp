// calibration_text (experiment/calibrate.h): the targets and the fitted values as tables.
#include <fmt/format.h>

#include <cmath>

#include "experiment/calibrate.h"
#include "report/text_table.h"

namespace ipisim::experiment {

namespace {

std::string predicted_text(const std::optional<double>& p) {
    return p ? report::number_text(*p) : std::string("-");
}

std::string residual_text(const std::optional<double>& p, const CalibrationTarget& t) {
    return p ? fmt::format("{:+.2f}", (*p - t.measured) / t.sigma) : std::string("-");
}

// A cost for people: durations in ns or us with four significant digits, others as written.
std::string shown(config::ParamType type, double v) {
    if (type != config::ParamType::duration) return cost_text(type, v);
    return v >= 1e6 ? fmt::format("{:.4g} us", v / 1e6) : fmt::format("{:.4g} ns", v / 1e3);
}

// How the intervals were made, what is not determined and why, and the correlations.
std::string spread_text(const CalibrationSetup& setup, const FitUncertainty& spread) {
    if (spread.params.empty()) {
        return "no intervals: the fitted machine was refused or a target is undefined there\n";
    }
    std::string out = fmt::format(
        "intervals: linearized at the fitted values, slopes by central differences over {:.3g}% of each range "
        "({} evaluations); ",
        100 * spread.step, spread.evaluations);
    if (spread.dof <= 0) {
        out += "no more targets than costs, so the spreads are taken as given\n";
    } else if (spread.scale > 1) {
        out += fmt::format(
            "the residuals exceed the targets' spreads (chi^2 {:.4g} over {} degrees of freedom), so the "
            "intervals are widened by sqrt({:.4g})\n",
            spread.chi2, spread.dof, spread.scale);
    } else {
        out += fmt::format("the residuals are within the targets' spreads (chi^2 {:.4g} over {} degrees of freedom)\n",
                           spread.chi2, spread.dof);
    }
    for (size_t i = 0; i < spread.params.size(); ++i) {
        if (!spread.params[i].determined) {
            out += fmt::format("  {}: not determined: {}; its range stays what --uncertainty samples\n",
                               setup.params[i].cost->key, spread.params[i].why_not);
        }
    }
    for (size_t i = 0; i < spread.params.size(); ++i) {
        for (size_t j = i + 1; j < spread.params.size(); ++j) {
            if (!spread.params[i].determined || !spread.params[j].determined) continue;
            if (std::abs(spread.correlation[i][j]) < 0.5) continue;
            out += fmt::format("  {} and {} are correlated ({:+.2f}): the targets fix them partly together\n",
                               setup.params[i].cost->key, setup.params[j].cost->key, spread.correlation[i][j]);
        }
    }
    return out;
}

}  // namespace

std::string calibration_text(const CalibrationSetup& setup, const CalibrationResult& result) {
    std::string out;
    report::TextTable targets(
        {"target", "experiment", "point", "metric", "measured", "sigma", "before", "resid", "after", "resid"});
    for (size_t i = 0; i < setup.targets.targets.size(); ++i) {
        const CalibrationTarget& t = setup.targets.targets[i];
        const CalibrationSetup::Bound& b = setup.bound[i];
        targets.add_row({t.name, setup.experiments[b.experiment].experiment.name(), std::to_string(b.point), t.metric,
                         report::number_text(t.measured), report::number_text(t.sigma),
                         predicted_text(result.before.predicted[i]), residual_text(result.before.predicted[i], t),
                         predicted_text(result.after.predicted[i]), residual_text(result.after.predicted[i], t)});
    }
    out += "Targets (resid: (predicted - measured) / sigma):\n" + targets.render() + "\n";

    const FitUncertainty& spread = result.spread;
    report::TextTable params(
        {"parameter", "mark", "range", "scale", "before", "fitted", "change", "1 sigma", "95% interval"});
    for (size_t i = 0; i < setup.params.size(); ++i) {
        const RangedCost& p = setup.params[i];
        const config::ParamType type = p.cost->type;
        const double before = result.before.values[i];
        const double after = result.after.values[i];
        std::string sigma = "-";
        std::string interval = "-";
        if (i < spread.params.size() && spread.params[i].determined) {
            sigma = shown(type, spread.params[i].sigma);
            interval = fmt::format("[{}, {}]", shown(type, spread.params[i].interval->lo),
                                   shown(type, spread.params[i].interval->hi));
        } else if (i < spread.params.size()) {
            interval = "not determined";
        }
        params.add_row({p.cost->key, config::to_string(p.cost->provenance.mark),
                        fmt::format("[{}, {}]", shown(type, p.lo), shown(type, p.hi)), p.log_scale ? "log" : "linear",
                        shown(type, before), shown(type, after),
                        before != 0 ? fmt::format("{:+.2f}%", 100.0 * (after - before) / before) : std::string("-"),
                        sigma, interval});
    }
    out += (result.optimized
                ? "Parameters (fitted within their ranges; written marked F, with the 95% interval as `fit`):\n"
                : "Parameters (not fitted, --interval-only: the 95% interval at their present values, written as "
                  "`fit`):\n") +
           params.render() + "\n";
    out += fmt::format("objective (sum of squared residuals): {:.4g} -> {:.4g}; {} evaluations, {}\n",
                       result.before.objective, result.after.objective, result.evaluations, result.stop);
    if (!result.after.refused.empty()) out += fmt::format("the fitted machine was refused: {}\n", result.after.refused);
    out += spread_text(setup, spread);
    return out;
}

}  // namespace ipisim::experiment
