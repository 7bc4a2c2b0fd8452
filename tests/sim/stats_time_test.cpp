#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/stats.h"
#include "sim/time.h"

using namespace ipisim::sim;
using namespace ipisim::sim::literals;

TEST(Time, literals_are_integer_picoseconds) {
    EXPECT_EQ((5_ns).count(), 5000u);
    EXPECT_EQ((2_us).count(), 2'000'000u);
    EXPECT_EQ(1_ms + 1_ns, Picos(1'000'001'000));
    EXPECT_EQ(5_ns - 3_ns, 2_ns);
}

TEST(Time, a_span_computed_backwards_is_an_error_not_a_silent_zero) {
    EXPECT_THROW((void)(3_ns - 5_ns), std::logic_error);
    Picos t = 3_ns;
    EXPECT_THROW(t -= 5_ns, std::logic_error);
    EXPECT_EQ(t, 3_ns);
    EXPECT_EQ(saturating_sub(3_ns, 5_ns), 0_ns);  // where "what is left" may be nothing, it says so
    EXPECT_EQ(saturating_sub(5_ns, 3_ns), 2_ns);
}

TEST(Time, a_clock_domain_converts_cycles_at_its_edge) {
    ClockDomain ghz2 = ClockDomain::from_mhz(2000);
    EXPECT_EQ(ghz2.to_time(Cycles(3)), 1500_ps);
    EXPECT_EQ(ghz2.to_cycles(1_us).count(), 2000u);
    ClockDomain odd = ClockDomain::from_mhz(2100);  // 476.19 ps per cycle, rounded to nearest
    EXPECT_EQ(odd.to_time(Cycles(1)), 476_ps);
    EXPECT_EQ(odd.to_time(Cycles(2100)), 1_us);
}

TEST(Stats, a_histogram_reports_exact_extremes_and_close_quantiles) {
    Histogram h;
    for (uint64_t i = 1; i <= 1000; ++i) h.record(Picos(i * 1000));
    EXPECT_EQ(h.count(), 1000u);
    EXPECT_EQ(h.min(), 1_ns);
    EXPECT_EQ(h.max(), 1000_ns);
    EXPECT_NEAR(static_cast<double>(h.quantile(0.5).count()), 500'000.0, 500'000.0 * 0.07);
    EXPECT_NEAR(h.mean_ps(), 500'500.0, 1e-6);
}

TEST(Stats, time_accounting_charges_each_span_to_the_category_it_leaves) {
    TimeAccount acct({"idle", "busy", "irq"});
    acct.switch_to(1, 100_ns);
    acct.switch_to(2, 250_ns);
    acct.switch_to(1, 300_ns);
    acct.settle(1000_ns);
    EXPECT_EQ(acct.time_in(0), 100_ns);
    EXPECT_EQ(acct.time_in(1), 850_ns);
    EXPECT_EQ(acct.time_in(2), 50_ns);
    EXPECT_EQ(acct.total(), 1000_ns);
}
