#include "experiment/fit_uncertainty.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ipisim::experiment {

namespace {

// Below this fraction of the largest eigenvalue of J^T J, a direction counts as not fixed by
// the targets (the simulator's numbers carry about 12 significant digits at best).
constexpr double kSingular = 1e-10;
// A parameter weighing more than this in such a direction is not determined.
constexpr double kNullWeight = 0.1;
// A range position this close to 0 or 1 is at the range's end (the optimizer's bound).
constexpr double kAtBound = 1e-4;
// Two-sided 95% of a normal distribution.
constexpr double kZ95 = 1.959964;

}  // namespace

FitUncertainty fit_uncertainty(const std::vector<RangedCost>& costs, const std::vector<double>& fitted,
                               const std::vector<double>& residuals_at_fit, const ResidualFunction& residuals,
                               double step) {
    if (!(step > 0 && step <= kMaxJacobianStep)) throw std::invalid_argument("fit_uncertainty: step out of (0, 0.25]");
    FitUncertainty out;
    out.step = step;
    const size_t k = costs.size();
    const size_t m = residuals_at_fit.size();
    out.params.resize(k);
    out.correlation.assign(k, std::vector<double>(k, 0.0));
    for (const double z : residuals_at_fit) out.chi2 += z * z;
    out.dof = static_cast<int>(m) - static_cast<int>(k);

    // The Jacobian in range positions, by central differences (one-sided at a bound).
    Eigen::MatrixXd jac = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k));
    std::vector<double> u(k);
    for (size_t i = 0; i < k; ++i) u[i] = position_of(costs[i], fitted[i]);
    std::vector<bool> usable(k, true);
    for (size_t i = 0; i < k; ++i) {
        // A fit stopped at a range end is no minimum of the residuals: the targets want a value
        // beyond it, and a linearized interval there would claim a precision they do not give.
        if (u[i] <= kAtBound || u[i] >= 1 - kAtBound) {
            usable[i] = false;
            out.params[i].why_not = std::string("the fit stopped at its range's ") +
                                    (u[i] <= kAtBound ? "low" : "high") + " end: the targets want a value beyond it";
            continue;
        }
        std::vector<double> lo_values = fitted;
        std::vector<double> hi_values = fitted;
        lo_values[i] = value_at(costs[i], std::max(0.0, u[i] - step));
        hi_values[i] = value_at(costs[i], std::min(1.0, u[i] + step));
        const double du = position_of(costs[i], hi_values[i]) - position_of(costs[i], lo_values[i]);
        if (!(du > 0)) {
            usable[i] = false;
            out.params[i].why_not = "its range has no room for a step (a value the cost's type cannot move by)";
            continue;
        }
        const std::optional<std::vector<double>> z_lo = residuals(lo_values);
        const std::optional<std::vector<double>> z_hi = residuals(hi_values);
        out.evaluations += 2;
        if (!z_lo || !z_hi) {
            usable[i] = false;
            out.params[i].why_not =
                "a step of it was refused by the model or left a target undefined, so its slope is unknown";
            continue;
        }
        double norm = 0;
        for (size_t t = 0; t < m; ++t) {
            const double d = ((*z_hi)[t] - (*z_lo)[t]) / du;
            jac(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(i)) = d;
            norm += d * d;
        }
        if (norm == 0) {
            usable[i] = false;
            out.params[i].why_not = "no target moves when it moves";
        }
    }

    // Drop the parameters the targets fix only in combination: those weighing in a near-null
    // eigenvector of J^T J, one direction at a time, until what is left is well conditioned.
    for (;;) {
        std::vector<Eigen::Index> kept;
        for (size_t i = 0; i < k; ++i) {
            if (usable[i]) kept.push_back(static_cast<Eigen::Index>(i));
        }
        if (kept.empty()) break;
        const auto n = static_cast<Eigen::Index>(kept.size());
        Eigen::MatrixXd sub(static_cast<Eigen::Index>(m), n);
        for (Eigen::Index c = 0; c < n; ++c) sub.col(c) = jac.col(kept[static_cast<size_t>(c)]);
        const Eigen::MatrixXd fisher = sub.transpose() * sub;
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(fisher);
        const Eigen::VectorXd& lambda = eig.eigenvalues();  // ascending
        if (lambda(0) > kSingular * lambda(n - 1)) {
            const double scale = out.dof > 0 ? std::max(1.0, out.chi2 / out.dof) : 1.0;
            out.scale = scale;
            // (J^T J)^-1 from the eigen decomposition: V diag(1/lambda) V^T.
            const Eigen::MatrixXd cov =
                eig.eigenvectors() * lambda.cwiseInverse().asDiagonal() * eig.eigenvectors().transpose() * scale;
            for (Eigen::Index a = 0; a < n; ++a) {
                const auto i = static_cast<size_t>(kept[static_cast<size_t>(a)]);
                ParameterSpread& p = out.params[i];
                p.determined = true;
                p.sigma_position = std::sqrt(cov(a, a));
                const double lo_u = std::max(0.0, u[i] - kZ95 * p.sigma_position);
                const double hi_u = std::min(1.0, u[i] + kZ95 * p.sigma_position);
                // The interval holds the fitted value as written (value_at rounds).
                p.interval = config::Range{std::min(value_at(costs[i], lo_u), fitted[i]),
                                           std::max(value_at(costs[i], hi_u), fitted[i])};
                const double dv_du =
                    costs[i].log_scale ? fitted[i] * std::log(costs[i].hi / costs[i].lo) : costs[i].hi - costs[i].lo;
                p.sigma = p.sigma_position * dv_du;
                for (Eigen::Index b = 0; b < n; ++b) {
                    const auto j = static_cast<size_t>(kept[static_cast<size_t>(b)]);
                    out.correlation[i][j] = cov(a, b) / std::sqrt(cov(a, a) * cov(b, b));
                }
            }
            break;
        }
        // The near-null direction: every parameter weighing in it is not determined.
        const Eigen::VectorXd null = eig.eigenvectors().col(0);
        bool dropped = false;
        for (Eigen::Index c = 0; c < n; ++c) {
            if (std::abs(null(c)) > kNullWeight) {
                const auto i = static_cast<size_t>(kept[static_cast<size_t>(c)]);
                usable[i] = false;
                out.params[i].why_not = "the targets fix it only in a combination with other fitted costs";
                dropped = true;
            }
        }
        if (!dropped) {  // cannot happen for a unit eigenvector of n <= 100 entries; a guard
            for (const Eigen::Index c : kept) usable[static_cast<size_t>(c)] = false;
        }
    }
    return out;
}

}  // namespace ipisim::experiment
