// calibration_text (experiment/calibrate.h): the targets and the fitted values as tables.
#include <fmt/format.h>

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

    report::TextTable params({"parameter", "mark", "range", "scale", "before", "fitted", "change"});
    for (size_t i = 0; i < setup.params.size(); ++i) {
        const RangedCost& p = setup.params[i];
        const double before = result.before.values[i];
        const double after = result.after.values[i];
        params.add_row({p.cost->key, config::to_string(p.cost->provenance.mark),
                        fmt::format("[{}, {}]", shown(p.cost->type, p.lo), shown(p.cost->type, p.hi)),
                        p.log_scale ? "log" : "linear", shown(p.cost->type, before), shown(p.cost->type, after),
                        before != 0 ? fmt::format("{:+.2f}%", 100.0 * (after - before) / before) : std::string("-")});
    }
    out += "Parameters (fitted within their ranges; written marked F):\n" + params.render() + "\n";
    out += fmt::format("objective (sum of squared residuals): {:.4g} -> {:.4g}; {} evaluations, {}\n",
                       result.before.objective, result.after.objective, result.evaluations, result.stop);
    if (!result.after.refused.empty()) out += fmt::format("the fitted machine was refused: {}\n", result.after.refused);
    return out;
}

}  // namespace ipisim::experiment
