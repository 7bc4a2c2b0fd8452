// experiment/fit_uncertainty.h on residuals that are exactly linear in the range positions, so
// every spread is known in closed form: sigma = 1 / |dz/du| over the targets, scaled by
// chi^2 / dof when the residuals exceed the spreads; costs fixed only in combination, or never
// moved, or whose steps are refused, are not determined.
#include "experiment/fit_uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

namespace ipisim::experiment {
namespace {

config::CostValue number_cost(const char* key, double value) {
    config::CostValue c;
    c.key = key;
    c.type = config::ParamType::number;
    c.value = value;
    return c;
}

RangedCost ranged(const config::CostValue& c, double lo, double hi) {
    RangedCost r;
    r.cost = &c;
    r.lo = lo;
    r.hi = hi;
    r.log_scale = lo > 0 && hi > 10 * lo;
    return r;
}

TEST(FitUncertainty, one_cost_two_targets_sigma_is_one_over_the_residuals_slope) {
    const config::CostValue c = number_cost("a", 5);
    const std::vector<RangedCost> costs = {ranged(c, 0, 10)};
    // z = (3 (u - 0.5), 4 (u - 0.5)): J^T J = 25, sigma = 0.2 in position, 2 in value.
    const ResidualFunction z = [&](const std::vector<double>& v) {
        const double u = position_of(costs[0], v[0]);
        return std::optional<std::vector<double>>({3 * (u - 0.5), 4 * (u - 0.5)});
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0}, {0.0, 0.0}, z);
    ASSERT_TRUE(f.params[0].determined);
    EXPECT_NEAR(f.params[0].sigma_position, 0.2, 1e-9);
    EXPECT_NEAR(f.params[0].sigma, 2.0, 1e-8);
    EXPECT_NEAR(f.params[0].interval->lo, 5 - 1.959964 * 2, 1e-5);
    EXPECT_NEAR(f.params[0].interval->hi, 5 + 1.959964 * 2, 1e-5);
    EXPECT_EQ(f.dof, 1);
    EXPECT_EQ(f.scale, 1);
    EXPECT_EQ(f.evaluations, 2);
}

TEST(FitUncertainty, the_step_of_the_differences_is_the_callers_and_is_checked) {
    const config::CostValue c = number_cost("a", 5);
    const std::vector<RangedCost> costs = {ranged(c, 0, 10)};
    std::vector<double> asked;
    const ResidualFunction z = [&](const std::vector<double>& v) {
        asked.push_back(v[0]);
        return std::optional<std::vector<double>>(std::vector<double>{4 * (position_of(costs[0], v[0]) - 0.5)});
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0}, {0.0}, z, 0.1);
    EXPECT_EQ(f.step, 0.1);
    EXPECT_EQ(asked, (std::vector<double>{4.0, 6.0}));  // +-10% of the range
    EXPECT_NEAR(f.params[0].sigma_position, 0.25, 1e-9);
    EXPECT_THROW(fit_uncertainty(costs, {5.0}, {0.0}, z, 0.0), std::invalid_argument);
    EXPECT_THROW(fit_uncertainty(costs, {5.0}, {0.0}, z, 0.3), std::invalid_argument);
}

TEST(FitUncertainty, residuals_larger_than_the_spreads_widen_the_interval_by_sqrt_chi2_per_dof) {
    const config::CostValue c = number_cost("a", 5);
    const std::vector<RangedCost> costs = {ranged(c, 0, 10)};
    const ResidualFunction z = [&](const std::vector<double>& v) {
        const double u = position_of(costs[0], v[0]);
        return std::optional<std::vector<double>>({3 * (u - 0.5) + 2, 4 * (u - 0.5) - 1.5});
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0}, {2.0, -1.5}, z);
    EXPECT_DOUBLE_EQ(f.chi2, 6.25);
    EXPECT_DOUBLE_EQ(f.scale, 6.25);
    EXPECT_NEAR(f.params[0].sigma_position, 0.2 * 2.5, 1e-9);
    // The interval is clipped to the range: 0.5 +- 0.98 in position.
    EXPECT_DOUBLE_EQ(f.params[0].interval->lo, 0);
    EXPECT_DOUBLE_EQ(f.params[0].interval->hi, 10);
}

TEST(FitUncertainty, on_a_log_range_the_interval_is_symmetric_in_position_not_in_value) {
    const config::CostValue c = number_cost("a", std::sqrt(1000.0));
    const std::vector<RangedCost> costs = {ranged(c, 1, 1000)};
    ASSERT_TRUE(costs[0].log_scale);
    const ResidualFunction z = [&](const std::vector<double>& v) {
        return std::optional<std::vector<double>>(std::vector<double>{5 * (position_of(costs[0], v[0]) - 0.5)});
    };
    const FitUncertainty f = fit_uncertainty(costs, {std::sqrt(1000.0)}, {0.0}, z);
    ASSERT_TRUE(f.params[0].determined);
    EXPECT_NEAR(f.params[0].sigma_position, 0.2, 1e-9);
    EXPECT_NEAR(f.params[0].interval->lo, std::pow(1000.0, 0.5 - 1.959964 * 0.2), 1e-6);
    EXPECT_NEAR(f.params[0].interval->hi, std::pow(1000.0, 0.5 + 1.959964 * 0.2), 1e-6);
    EXPECT_NEAR(f.params[0].sigma, 0.2 * std::sqrt(1000.0) * std::log(1000.0), 1e-6);
    EXPECT_EQ(f.dof, 0);  // one target, one cost: the spread is taken as given
    EXPECT_EQ(f.scale, 1);
}

TEST(FitUncertainty, two_costs_the_targets_fix_only_as_a_sum_are_not_determined) {
    const config::CostValue a = number_cost("a", 5);
    const config::CostValue b = number_cost("b", 5);
    const config::CostValue c = number_cost("c", 5);
    const std::vector<RangedCost> costs = {ranged(a, 0, 10), ranged(b, 0, 10), ranged(c, 0, 10)};
    const ResidualFunction z = [&](const std::vector<double>& v) {
        const double s = position_of(costs[0], v[0]) + position_of(costs[1], v[1]) - 1;
        const double w = position_of(costs[2], v[2]) - 0.5;
        return std::optional<std::vector<double>>({s, 2 * s, 10 * w});
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0, 5.0, 5.0}, {0.0, 0.0, 0.0}, z);
    EXPECT_FALSE(f.params[0].determined);
    EXPECT_FALSE(f.params[1].determined);
    EXPECT_EQ(f.params[0].why_not, "the targets fix it only in a combination with other fitted costs");
    ASSERT_TRUE(f.params[2].determined);
    EXPECT_NEAR(f.params[2].sigma_position, 0.1, 1e-9);  // c alone, without a and b
}

TEST(FitUncertainty, correlated_costs_report_their_correlation) {
    const config::CostValue a = number_cost("a", 5);
    const config::CostValue b = number_cost("b", 5);
    const std::vector<RangedCost> costs = {ranged(a, 0, 10), ranged(b, 0, 10)};
    // z = (u_a + u_b - 1, u_a - 0.5): J = [[1, 1], [1, 0]], (J^T J)^-1 = [[1, -1], [-1, 2]].
    const ResidualFunction z = [&](const std::vector<double>& v) {
        const double ua = position_of(costs[0], v[0]);
        const double ub = position_of(costs[1], v[1]);
        return std::optional<std::vector<double>>({ua + ub - 1, ua - 0.5});
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0, 5.0}, {0.0, 0.0}, z);
    EXPECT_NEAR(f.params[0].sigma_position, 1.0, 1e-9);
    EXPECT_NEAR(f.params[1].sigma_position, std::sqrt(2.0), 1e-9);
    EXPECT_NEAR(f.correlation[0][1], -1 / std::sqrt(2.0), 1e-9);
    EXPECT_NEAR(f.correlation[1][0], -1 / std::sqrt(2.0), 1e-9);
}

TEST(FitUncertainty, a_fit_stopped_at_its_range_end_is_not_determined) {
    const config::CostValue a = number_cost("a", 0);
    const config::CostValue b = number_cost("b", 5);
    const std::vector<RangedCost> costs = {ranged(a, 0, 10), ranged(b, 0, 10)};
    // a wants -5 (below its range); b is fixed at 5.
    const ResidualFunction z = [&](const std::vector<double>& v) {
        return std::optional<std::vector<double>>(
            std::vector<double>{position_of(costs[0], v[0]) + 0.5, position_of(costs[1], v[1]) - 0.5});
    };
    const FitUncertainty f = fit_uncertainty(costs, {0.0, 5.0}, {0.5, 0.0}, z);
    EXPECT_FALSE(f.params[0].determined);
    EXPECT_EQ(f.params[0].why_not, "the fit stopped at its range's low end: the targets want a value beyond it");
    EXPECT_FALSE(f.params[0].interval.has_value());
    ASSERT_TRUE(f.params[1].determined);
    EXPECT_NEAR(f.params[1].sigma_position, 1.0, 1e-9);
    EXPECT_EQ(f.evaluations, 2);  // no steps of a
}

TEST(FitUncertainty, a_refused_step_leaves_its_cost_not_determined) {
    const config::CostValue a = number_cost("a", 5);
    const config::CostValue b = number_cost("b", 5);
    const std::vector<RangedCost> costs = {ranged(a, 0, 10), ranged(b, 0, 10)};
    const ResidualFunction z = [&](const std::vector<double>& v) -> std::optional<std::vector<double>> {
        if (v[1] != 5.0) return std::nullopt;  // the model refuses any other b
        return std::vector<double>{position_of(costs[0], v[0]) - 0.5, 0.0};
    };
    const FitUncertainty f = fit_uncertainty(costs, {5.0, 5.0}, {0.0, 0.0}, z);
    EXPECT_TRUE(f.params[0].determined);
    EXPECT_FALSE(f.params[1].determined);
    EXPECT_NE(f.params[1].why_not.find("refused"), std::string::npos);
}

}  // namespace
}  // namespace ipisim::experiment
