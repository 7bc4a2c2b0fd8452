// The scheduler tick (kernel/time/tick.h): TICK_NSEC from HZ, and each CPU's tick times with
// and without skew_tick (tick_setup_sched_timer's offset, integer nanoseconds as do_div).
#include "kernel/time/tick.h"

#include <gtest/gtest.h>

using namespace ipisim;
using namespace ipisim::sim::literals;
using kernel::TickSched;
using sim::Picos;

TEST(Tick, tick_nsec_rounds_a_second_over_hz_to_the_nearest_nanosecond) {
    EXPECT_EQ(kernel::tick_nsec(100), 10_ms);
    EXPECT_EQ(kernel::tick_nsec(250), 4_ms);
    EXPECT_EQ(kernel::tick_nsec(1000), 1_ms);
    EXPECT_EQ(kernel::tick_nsec(300), 3'333'333_ns);  // (10^9 + 150) / 300
}

TEST(Tick, aligned_ticks_fall_on_the_jiffy_boundaries_on_every_cpu) {
    const TickSched t(250, false, 4);
    EXPECT_FALSE(t.skewed());
    for (hw::CpuId c = 0; c < 4; ++c) {
        EXPECT_EQ(t.offset(c), Picos::zero());
        EXPECT_EQ(t.next_tick(c, Picos::zero()), 4_ms);
        EXPECT_EQ(t.next_tick(c, 4_ms - 1_ps), 4_ms);
        EXPECT_EQ(t.next_tick(c, 4_ms), 8_ms);  // strictly after now
    }
}

TEST(Tick, skew_tick_spreads_the_cpus_over_the_first_half_of_the_jiffy) {
    const TickSched four(250, true, 4);
    EXPECT_TRUE(four.skewed());
    EXPECT_EQ(four.offset(0), Picos::zero());
    EXPECT_EQ(four.offset(1), 500_us);
    EXPECT_EQ(four.offset(3), 1'500_us);
    EXPECT_EQ(four.next_tick(0, Picos::zero()), 4_ms);
    EXPECT_EQ(four.next_tick(1, Picos::zero()), 500_us);
    EXPECT_EQ(four.next_tick(1, 500_us), 4'500_us);
    EXPECT_EQ(four.next_tick(3, 9_ms), 9'500_us);
    // 2 ms / 3 = 666666 ns (do_div truncates), times the CPU number.
    const TickSched three(250, true, 3);
    EXPECT_EQ(three.offset(2), 1'333'332_ns);
    EXPECT_EQ(three.next_tick(2, 4_ms), 5'333'332_ns);
}
