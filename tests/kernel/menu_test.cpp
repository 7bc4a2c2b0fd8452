// The menu governor (kernel/sched/menu.h, drivers/cpuidle/governors/menu.c) on Sapphire Rapids
// (intel_idle spr_cstates: POLL, C1 1/1 us, C1E 2/4 us, C6 290/800 us exit latency / target
// residency) with HZ=250 (a 4 ms tick): the 8-interval detector, the tick decision, and the
// samples menu_update() records.
#include <gtest/gtest.h>

#include "kernel/sched/menu.h"
#include "support/kernel_world.h"

using namespace ipisim;
using namespace ipisim::sim::literals;
using kernel::MENU_NO_TIMER;
using kernel::MENU_UINT_MAX;
using kernel::MenuDevice;

namespace {

constexpr sim::Picos kTick = 4_ms;

MenuDevice with_intervals(std::initializer_list<uint32_t> us) {
    MenuDevice d;
    size_t i = 0;
    for (const uint32_t v : us) d.intervals.at(i++) = v;
    return d;
}

// Selection with no timer pending, `delta_tick` to the next tick.
kernel::MenuChoice select(const hw::MachineSpec& spr, MenuDevice& d, sim::Picos delta_tick = 3_ms) {
    return kernel::menu_select(spr, d, kernel::MenuTiming{MENU_NO_TIMER, delta_tick, kTick}, /*two_sided=*/true);
}

}  // namespace

TEST(Menu, the_typical_interval_is_the_average_of_regular_samples_without_their_outliers) {
    EXPECT_EQ(kernel::get_typical_interval(MenuDevice{}, true), MENU_UINT_MAX);  // no history
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({50, 50, 50, 50, 50, 50, 50, 50}), true), 50U);
    // One tick-woken sample (45 ms) among seven of 50 us: discarded, in every version.
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({50, 50, 50, 45000, 50, 50, 50, 50}), true), 50U);
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({50, 50, 50, 45000, 50, 50, 50, 50}), false), 50U);
    // A low outlier: 6.15+ discards it; before, only the largest samples go, down to the one
    // low sample, whose variance is zero: it becomes the prediction (the case the 6.15 change
    // was made for).
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({1, 200, 200, 200, 200, 200, 200, 200}), true), 200U);
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({1, 200, 200, 200, 200, 200, 200, 200}), false), 1U);
    // Irregular: 6.15+ drops 600 and 500 (the farthest from the average), then, with 6 of 8
    // samples left, falls back to their maximum; before, no prediction.
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({10, 300, 20, 400, 30, 500, 40, 600}), true), 400U);
    EXPECT_EQ(kernel::get_typical_interval(with_intervals({10, 300, 20, 400, 30, 500, 40, 600}), false), MENU_UINT_MAX);
}

TEST(Menu, the_prediction_picks_the_deepest_state_that_fits_and_keeps_the_tick_below_one_tick) {
    const hw::MachineSpec spr = test::load_test_machine("sapphire_rapids_30c");
    ASSERT_EQ(spr.idle.size(), 4U);
    MenuDevice none;
    kernel::MenuChoice c = select(spr, none);
    EXPECT_EQ(c.idx, 3U);  // no history: C6, and the tick stops
    EXPECT_TRUE(c.stop_tick);

    MenuDevice fifty = with_intervals({50, 50, 50, 50, 50, 50, 50, 50});
    c = select(spr, fifty);
    EXPECT_EQ(c.idx, 2U);  // 50 us: C1E (4 us fits, C6's 800 us does not)
    EXPECT_FALSE(c.stop_tick);
    EXPECT_EQ(c.predicted, 50_us);

    MenuDevice two = with_intervals({2, 2, 2, 2, 2, 2, 2, 2});
    c = select(spr, two);
    EXPECT_EQ(c.idx, 1U);  // 2 us: C1, not POLL (no timer soon)
    EXPECT_FALSE(c.stop_tick);

    // 1 ms: C6 fits, but the tick stays on (under 4 ms) and comes before C6's residency when
    // it is 500 us away: one state shallower.
    MenuDevice one_ms = with_intervals({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000});
    EXPECT_EQ(select(spr, one_ms, 500_us).idx, 2U);
    c = select(spr, one_ms, 3_ms);
    EXPECT_EQ(c.idx, 3U);
    EXPECT_FALSE(c.stop_tick);
}

TEST(Menu, a_close_timer_caps_the_prediction_through_the_correction_factor) {
    const hw::MachineSpec spr = test::load_test_machine("sapphire_rapids_30c");
    MenuDevice d;  // no history; correction factor 1.0 in every bucket
    const kernel::MenuChoice c =
        kernel::menu_select(spr, d, kernel::MenuTiming{20_us, 3_ms, kTick}, /*two_sided=*/true);
    EXPECT_EQ(c.predicted, 20_us);
    EXPECT_EQ(c.idx, 2U);
    EXPECT_EQ(d.bucket, 1U);  // 10-100 us
    // Woken after 10 us (C1E's 2 us exit latency deducted): the factor of bucket 1 decays by
    // 1/8 and gains 1024 * 8 / 20.
    kernel::menu_update(spr, d, c.idx, 10_us, /*tick_wakeup=*/false, kTick);
    EXPECT_EQ(d.correction_factor[1], 8192U - 1024U + 409U);
    EXPECT_EQ(d.intervals[0], 8U);
}

TEST(Menu, the_update_records_the_residency_less_the_exit_latency_and_a_tick_wake_as_long) {
    const hw::MachineSpec spr = test::load_test_machine("sapphire_rapids_30c");
    MenuDevice d;
    // Each update follows a selection (which sets next_timer, here none).
    auto idle = [&](size_t idx, sim::Picos residency, bool tick_wakeup) {
        (void)select(spr, d);
        kernel::menu_update(spr, d, idx, residency, tick_wakeup, kTick);
    };
    idle(3, 3_ms, false);
    idle(3, 400_us, false);  // under 2 x 290 us: halved
    idle(2, 3_us, false);    // under 2 x 2 us: halved
    // The tick ended an idle period with no timer due: 45 ms (9/10 of MAX_INTERESTING).
    idle(1, 4_ms, true);
    EXPECT_EQ(d.intervals[0], 2710U);
    EXPECT_EQ(d.intervals[1], 200U);
    EXPECT_EQ(d.intervals[2], 1U);
    EXPECT_EQ(d.intervals[3], 45000U);
    EXPECT_EQ(d.interval_ptr, 4U);
}

TEST(Menu, one_long_sleep_among_short_ones_does_not_send_the_cpu_to_c6) {
    // The last-interval rule this replaces chose C6 after any tick-ended or long interval; menu
    // looks at eight and drops the outlier.
    const hw::MachineSpec spr = test::load_test_machine("sapphire_rapids_30c");
    MenuDevice d;
    for (int i = 0; i < 7; ++i) {
        (void)select(spr, d);
        kernel::menu_update(spr, d, 2, 30_us, false, kTick);
    }
    (void)select(spr, d);
    kernel::menu_update(spr, d, 3, 6_ms, false, kTick);
    EXPECT_EQ(d.intervals[7], 5710U);
    EXPECT_EQ(select(spr, d).idx, 2U);
}
