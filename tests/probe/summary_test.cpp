// probe::summarize: median and spread of repeated measurements, interpolated like numpy.
#include "probe/summary.h"

#include <gtest/gtest.h>

namespace ipisim::probe {
namespace {

TEST(ProbeSummary, quantiles_interpolate_linearly_between_order_statistics) {
    const Spread s = summarize({4, 1, 3, 2});
    EXPECT_EQ(s.n, 4U);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.p25, 1.75);
    EXPECT_DOUBLE_EQ(s.median, 2.5);
    EXPECT_DOUBLE_EQ(s.p75, 3.25);
    EXPECT_DOUBLE_EQ(s.p5, 1.15);
    EXPECT_DOUBLE_EQ(s.p95, 3.85);
    EXPECT_DOUBLE_EQ(s.max, 4);
}

TEST(ProbeSummary, one_sample_is_its_own_median_and_spread) {
    const Spread s = summarize({7});
    EXPECT_EQ(s.n, 1U);
    EXPECT_DOUBLE_EQ(s.min, 7);
    EXPECT_DOUBLE_EQ(s.median, 7);
    EXPECT_DOUBLE_EQ(s.max, 7);
}

TEST(ProbeSummary, no_samples_reads_as_not_measured) {
    const Spread s = summarize({});
    EXPECT_EQ(s.n, 0U);
    EXPECT_EQ(spread_text(s, "ns"), "(not measured)");
}

TEST(ProbeSummary, text_gives_the_median_with_its_unit_then_the_spread) {
    EXPECT_EQ(spread_text(summarize({1, 2, 3}), "ns"), "2.0 ns (min 1.0, p25 1.5, p75 2.5, max 3.0; N=3)");
}

}  // namespace
}  // namespace ipisim::probe
