// `ipisim calibrate`: fits chosen costs of a machine (marked A or F, with a range) to measured
// microbenchmark values (experiment/targets.h), docs/uncertainty.md "calibrate".
//
// Each target names an experiment, a point, a metric and a measured value with its 1-sigma
// spread. Every target experiment runs on the machine being calibrated (not the machine its
// file names), through the same per-sample path as --uncertainty and sensitivity
// (uncertainty.h prepare_variant: the machine document with the costs set, loaded and checked
// again). The objective is the sum over targets of ((predicted - measured) / sigma)^2, minimized
// by NLopt's BOBYQA (derivative-free, bounded, deterministic given its start) inside each
// parameter's range, from the machine's own values. A parameter whose range spans more than 10x
// is fitted on a log scale (as uncertainty.h samples it). A machine the model refuses (a cost
// combination crossing a constraint) or a target metric that is undefined (0/0) gets a penalty
// far above any fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiment/fit_uncertainty.h"
#include "experiment/machine_source.h"
#include "experiment/runner.h"
#include "experiment/targets.h"
#include "experiment/uncertainty.h"

namespace ipisim::experiment {

// The machine, the target experiments prepared on it, and the costs to fit.
struct CalibrationSetup {
    std::string machine_file;
    LoadedMachine machine;
    TargetsFile targets;
    std::vector<PreparedExperiment> experiments;  // distinct experiment files, first use first
    struct Bound {
        size_t experiment = 0;  // into experiments
        size_t point = 0;
        std::string metric;
    };
    std::vector<Bound> bound;        // one per target
    std::vector<RangedCost> params;  // in the order asked for; cost pointers into machine.spec
};

// Loads the targets' experiments on the machine and checks everything before any run: an
// experiment, point or metric that does not exist, a parameter that is not a cost of the
// machine, is not marked A or F, has no range, or is named twice, is a ConfigError at the
// targets file's key (or at "--params" for `params_override`, "a,b" when non-empty).
// `experiments_dir`: where experiment names are looked up.
CalibrationSetup prepare_calibration(const std::string& machine_file, const TargetsFile& targets,
                                     const std::vector<std::string>& params_override,
                                     const std::string& experiments_dir);

// One evaluation: each target's prediction (nullopt: undefined, or the machine was refused)
// and the objective.
struct Evaluation {
    std::vector<double> values;  // the parameters, base units
    std::vector<std::optional<double>> predicted;
    double objective = 0;
    std::string refused;  // why the machine was refused ("" if it ran)
};

// The targets predicted with the parameters at `values` (base units), the experiments' points
// on `jobs` threads; identical for any number.
Evaluation evaluate(const CalibrationSetup& setup, const std::vector<double>& values, unsigned jobs);

struct CalibrateOptions {
    unsigned jobs = 1;
    int max_evaluations = 200;
    bool optimize = true;                  // false: keep the machine's values, only compute their intervals
    double jacobian_step = kJacobianStep;  // the intervals' differences (fit_uncertainty.h)
};

struct CalibrationResult {
    Evaluation before;  // at the machine's own values
    Evaluation after;   // at the fitted values
    int evaluations = 0;
    std::string stop;       // why the optimizer stopped
    bool optimized = true;  // false: CalibrateOptions::optimize was off; after == before
    // How well the targets determine each fitted value (experiment/fit_uncertainty.h); empty
    // params when the fitted machine was refused or a target is undefined there.
    FitUncertainty spread;
};

CalibrationResult calibrate(const CalibrationSetup& setup, const CalibrateOptions& options);

// The fitted machine file's text: the machine's document with the fitted values in place,
// each marked F with the range kept, its fit interval (`fit`, the 95% interval of
// result.spread; none for a value the targets do not determine), its target naming the targets
// file and the targets' names, its source the original one and the value it replaced (a header
// comment says how it was made, from the input files' names only: the same input gives the same
// file). It loads as a machine file.
std::string fitted_machine_text(const CalibrationSetup& setup, const CalibrationResult& result);

// A cost value as its machine file writes it ("200 ns", "2 GHz", "64").
std::string cost_text(config::ParamType type, double value);

// Per target: measured +- sigma, predicted and residual (sigma units) before and after; per
// parameter: range, start, fitted value; the objective before and after.
std::string calibration_text(const CalibrationSetup& setup, const CalibrationResult& result);

}  // namespace ipisim::experiment
