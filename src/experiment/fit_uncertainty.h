// How well a calibration's targets determine the costs fitted to them (`ipisim calibrate`,
// docs/uncertainty.md "What a fit leaves open").
//
// The linearized least-squares estimate (e.g. W. H. Press et al., Numerical Recipes, 3rd ed.,
// §15.5.2 and §15.6): at the fitted values, J[t][i] is how fast target t's spread-normalized
// residual z_t = (predicted_t - measured_t) / sigma_t moves with parameter i, found by central
// differences over a step (kJacobianStep unless asked) of the parameter's range position (the coordinate the fit
// searches: linear, or logarithmic for a range over 10x). The parameters' covariance is
// (J^T J)^-1, scaled by chi^2 / (targets - parameters) when that exceeds 1: residuals larger than
// the targets' spreads say the spreads, or the model, are off by that much, and the interval
// widens with them (with no more targets than parameters it is not scaled). A parameter's 95%
// interval is its fitted position +- 1.96 sigma, clipped to its range and mapped back to its
// unit; the interval is therefore asymmetric in value on a log scale.
//
// Not determined: a parameter whose fit stopped at an end of its range (the targets want a value
// beyond it: the residuals have no minimum there to linearize about), one no target moves (its
// column of J is zero), or one the targets fix only in a combination with others (J^T J
// singular: it weighs in a near-null eigenvector). Such
// a parameter gets no interval; the others' are computed without it (with it held at its fitted
// value, which understates them if it is correlated with them). A step that the model refuses
// or that leaves a target undefined makes its parameter not determined too.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiment/uncertainty.h"

namespace ipisim::experiment {

// The default step of the central differences, as a fraction of a parameter's range position:
// small enough for a straight line over it, large enough that the simulator's whole-event and
// whole-loop steps do not make the difference noise. Targets with run-to-run noise (a loops/s in
// a short window) want a larger one (`ipisim calibrate --step`).
inline constexpr double kJacobianStep = 0.02;
// The largest step allowed: a quarter of the range on each side.
inline constexpr double kMaxJacobianStep = 0.25;

// The normalized residuals z_t at parameter values (base units), or nullopt when the machine is
// refused or a target is undefined.
using ResidualFunction = std::function<std::optional<std::vector<double>>(const std::vector<double>& values)>;

struct ParameterSpread {
    bool determined = false;
    std::string why_not;                    // when not determined: the reason, for people
    double sigma_position = 0;              // 1 sigma in range position units (0-1)
    double sigma = 0;                       // 1 sigma in base units, at the fitted value (linearized)
    std::optional<config::Range> interval;  // the 95% interval, base units, within the range
};

struct FitUncertainty {
    std::vector<ParameterSpread> params;
    std::vector<std::vector<double>> correlation;  // [i][j] between determined parameters (else 0)
    double step = kJacobianStep;                   // the differences' step, fraction of the range position
    double scale = 1;                              // the factor the covariance was scaled by (chi^2 / dof, at least 1)
    double chi2 = 0;                               // the objective at the fitted values
    int dof = 0;                                   // targets - parameters
    int evaluations = 0;                           // model evaluations the differences took
};

// The spread of each fitted parameter. `costs`: the parameters (their ranges are the search
// ranges); `fitted`: their fitted values, base units; `residuals_at_fit`: z at those values.
// `step`: the central differences' step (0 < step <= kMaxJacobianStep).
FitUncertainty fit_uncertainty(const std::vector<RangedCost>& costs, const std::vector<double>& fitted,
                               const std::vector<double>& residuals_at_fit, const ResidualFunction& residuals,
                               double step = kJacobianStep);

}  // namespace ipisim::experiment
